package db

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Channels on which the database announces changes (the triggers of
// migration 00006_notify.sql send them, in the changing transaction).
const (
	// SessionsChannel carries "session:<id>" when a session ends or changes,
	// "user:<id>" when a user changes, "all" when the sessions table is truncated.
	SessionsChannel = "styrmin_sessions"
	// CatalogueChannel carries an empty payload whenever driver_versions changes.
	CatalogueChannel = "styrmin_catalogue"
	// probeChannel carries the listener's own probes.
	probeChannel = "styrmin_listener_probe"
)

// Subscriber is told about the notifications of one channel.
type Subscriber interface {
	// Listening is called with true once notifications are received, and with
	// false when the connection is lost: notifications sent in between are
	// missed, so whatever was learnt before must be forgotten.
	Listening(on bool)
	// Notify receives one notification's payload.
	Notify(payload string)
}

// Listener receives PostgreSQL notifications on one dedicated connection and
// hands each to its channel's subscriber, reconnecting when the connection is
// lost. Subscribe before Run.
type Listener struct {
	// pool sends the probes, over another connection than the listening one.
	pool   *pgxpool.Pool
	config *pgx.ConnConfig
	logger *slog.Logger
	subs   map[string][]Subscriber
	// probeEvery is how long the connection may stay silent before a probe is
	// sent, and how long the probe may take to come back.
	probeEvery time.Duration
	// probes numbers the probes sent.
	probes uint64
	// retryMax is the longest wait between two connection attempts.
	retryMax time.Duration

	readyOnce sync.Once
	ready     chan struct{}
}

// NewListener returns a listener connecting like pool does.
func NewListener(pool *pgxpool.Pool, logger *slog.Logger) *Listener {
	return &Listener{
		pool:       pool,
		config:     pool.Config().ConnConfig.Copy(),
		logger:     logger,
		subs:       map[string][]Subscriber{},
		probeEvery: 10 * time.Second,
		retryMax:   30 * time.Second,
		ready:      make(chan struct{}),
	}
}

// Subscribe has s told about the notifications on channel.
func (l *Listener) Subscribe(channel string, s Subscriber) {
	l.subs[channel] = append(l.subs[channel], s)
}

// Ready is closed once the listener has listened for the first time.
func (l *Listener) Ready() <-chan struct{} { return l.ready }

// Run listens until ctx ends, reconnecting after a second, then up to
// retryMax, whenever the connection is lost.
func (l *Listener) Run(ctx context.Context) {
	wait := time.Second
	for ctx.Err() == nil {
		listened, err := l.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		if listened {
			wait = time.Second
		}
		l.logger.Warn("database notifications lost; caches are bypassed until they are back", "retry_in", wait, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, l.retryMax)
	}
}

// listen connects, listens on every subscribed channel and dispatches
// notifications until the connection fails. Subscribers are told it listens
// only once a probe notification, sent over another connection, came back:
// a connection that takes LISTEN but gets nothing (a pooler in transaction
// mode) never turns the caches on. While the connection is silent a probe
// goes every probeEvery, and one that does not come back within probeEvery
// ends the connection. It reports whether it got as far as listening.
func (l *Listener) listen(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, l.config)
	if err != nil {
		return false, fmt.Errorf("db: connect to listen: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, channel := range append(slices.Collect(maps.Keys(l.subs)), probeChannel) {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
			return false, fmt.Errorf("db: listen on %s: %w", channel, err)
		}
	}
	defer func() {
		if listened {
			l.tell(false)
		}
	}()
	pending, err := l.probe(ctx)
	if err != nil {
		return false, err
	}
	for {
		waitCtx, cancel := context.WithTimeout(ctx, l.probeEvery)
		n, err := conn.WaitForNotification(waitCtx)
		timedOut := waitCtx.Err() != nil
		cancel()
		switch {
		case err == nil && n.Channel == probeChannel:
			if n.Payload == pending {
				pending = ""
				if !listened {
					listened = true
					l.tell(true)
					l.readyOnce.Do(func() { close(l.ready) })
				}
			}
		case err == nil:
			for _, s := range l.subs[n.Channel] {
				s.Notify(n.Payload)
			}
		case ctx.Err() != nil:
			return listened, ctx.Err()
		case timedOut && pending != "":
			return listened, fmt.Errorf("db: a notification sent %s ago has not arrived", l.probeEvery)
		case timedOut:
			if pending, err = l.probe(ctx); err != nil {
				return listened, err
			}
		default:
			return listened, fmt.Errorf("db: wait for notifications: %w", err)
		}
	}
}

// probe sends a notification on probeChannel through the pool and returns its payload.
func (l *Listener) probe(ctx context.Context) (string, error) {
	l.probes++
	payload := strconv.FormatUint(l.probes, 10)
	if err := New(l.pool).Notify(ctx, NotifyParams{Channel: probeChannel, Payload: payload}); err != nil {
		return "", fmt.Errorf("db: send a probe notification: %w", err)
	}
	return payload, nil
}

// tell every subscriber whether notifications are being received.
func (l *Listener) tell(on bool) {
	for _, subs := range l.subs {
		for _, s := range subs {
			s.Listening(on)
		}
	}
}
