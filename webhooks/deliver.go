package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/publicnet"
	"github.com/styrmin/styrmin/secrets"
	"github.com/styrmin/styrmin/version"
)

// How deliveries are sent.
const (
	// Queue is the River queue of deliveries.
	Queue = "webhooks"
	// Workers is how many deliveries a process sends at once.
	Workers = 10
	// MaxAttempts is how many times a delivery is tried: River waits about
	// attempt⁴ seconds between two (1 s, 16 s, 81 s, ... about 40 minutes in all).
	MaxAttempts = 7
	// Timeout bounds one attempt, redirects included.
	Timeout = 10 * time.Second
	// MaxRedirects is how many redirects an attempt follows.
	MaxRedirects = 3
	// maxAnswer is how much of an answer's body is read (and dropped).
	maxAnswer = 64 << 10
)

// EventHeader is a delivery's event; DeliveryHeader, TimestampHeader and
// SignatureHeader authenticate it (verify.go).
const EventHeader = "X-Styrmin-Event"

// Deliverer is the River worker that sends deliveries (executor.JobWorkers).
type Deliverer struct {
	river.WorkerDefaults[deliveryArgs]
	pool *pgxpool.Pool
	q    *db.Queries
	box  *secrets.Box
	// first sends to the webhook's own URL, wherever an admin pointed it;
	// redirected sends every later request, and connects to public addresses only.
	first, redirected *http.Client
	log               *slog.Logger
}

var _ executor.JobWorkers = (*Deliverer)(nil)

// NewDeliverer returns the worker that sends deliveries, opening webhooks'
// secrets with box.
func NewDeliverer(pool *pgxpool.Pool, box *secrets.Box, logger *slog.Logger) *Deliverer {
	if logger == nil {
		logger = slog.Default()
	}
	return &Deliverer{pool: pool, q: db.New(pool), box: box, first: client(nil), redirected: client(refuseNonPublic), log: logger}
}

// client is an HTTP client that follows no redirect (send does) and uses no
// proxy (which would connect in its stead), whose dialer runs control.
func client(control func(network, address string, _ syscall.RawConn) error) *http.Client {
	dialer := &net.Dialer{Timeout: Timeout, Control: control}
	return &http.Client{
		Transport: &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: Timeout, MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Queue names the deliveries' queue and how many are sent at once.
func (d *Deliverer) Queue() (string, int) { return Queue, Workers }

// Register adds the deliverer to a River client's workers.
func (d *Deliverer) Register(workers *river.Workers) { river.AddWorker(workers, d) }

// Timeout bounds a delivery job: an attempt's, and time to record it.
func (d *Deliverer) Timeout(*river.Job[deliveryArgs]) time.Duration { return Timeout + 20*time.Second }

// Work makes one attempt at a delivery and records it. A delivery that was
// delivered (or gave up) is not sent again; one the receiver took is
// recorded delivered together with its job's completion.
func (d *Deliverer) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	row, err := d.q.DeliveryToSend(ctx, job.Args.DeliveryID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // its webhook, or its task (the task retention), was deleted
	}
	if err != nil {
		return fmt.Errorf("webhooks: delivery %d: %w", job.Args.DeliveryID, err)
	}
	if row.WebhookDelivery.Status != DeliveryPending {
		return nil
	}
	secret, err := d.box.Open(row.Webhook.Secret, secretAt(row.Webhook.ID))
	if err != nil {
		return fmt.Errorf("webhooks: open the secret of webhook %d: %w", row.Webhook.ID, err)
	}
	started := time.Now()
	code, sendErr := d.send(ctx, row.Webhook.Url, row.WebhookDelivery, secret)
	var permanent *permanentError
	status := DeliveryPending
	switch {
	case sendErr == nil:
		status = DeliveryDelivered
	case errors.As(sendErr, &permanent) || job.Attempt >= job.MaxAttempts:
		status = DeliveryFailed
	}
	attempt := db.RecordAttemptParams{ID: row.WebhookDelivery.ID, Status: status, StatusCode: pgtype.Int4{Int32: int32(code), Valid: code != 0},
		DurationMs: pgtype.Int4{Int32: int32(time.Since(started).Milliseconds()), Valid: true}}
	if sendErr != nil {
		attempt.Error = sendErr.Error()
	}
	recordCtx := context.WithoutCancel(ctx)
	err = pgx.BeginFunc(recordCtx, d.pool, func(tx pgx.Tx) error {
		if err := d.q.WithTx(tx).RecordAttempt(recordCtx, attempt); err != nil {
			return err
		}
		if status != DeliveryDelivered {
			return nil
		}
		_, err := river.JobCompleteTx[*riverpgxv5.Driver](recordCtx, tx, job)
		return err
	})
	if err != nil {
		return fmt.Errorf("webhooks: record delivery %d: %w", row.WebhookDelivery.ID, err)
	}
	switch {
	case sendErr == nil:
		return nil
	case status == DeliveryFailed:
		return river.JobCancel(sendErr)
	}
	return sendErr
}

// permanentError is a failure that trying again does not mend.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// send POSTs the delivery's body to target, signed with secret together
// with its id and the time now (so each attempt, and each redelivery, is
// signed afresh), following MaxRedirects redirects at most (each sends the
// same POST again), to public addresses only. It returns the last answer's
// status code (0 when none came).
func (d *Deliverer) send(ctx context.Context, target string, delivery db.WebhookDelivery, secret []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	c := d.first
	id, now := strconv.FormatInt(delivery.ID, 10), time.Now().Unix()
	signature := Sign(secret, id, now, delivery.Body)
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(delivery.Body))
		if err != nil {
			return 0, &permanentError{fmt.Errorf("the URL %s is not valid: %w", target, err)}
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", version.UserAgent())
		req.Header.Set(EventHeader, delivery.Event)
		req.Header.Set(DeliveryHeader, id)
		req.Header.Set(TimestampHeader, strconv.FormatInt(now, 10))
		req.Header.Set(SignatureHeader, signature)
		resp, err := c.Do(req)
		if err != nil {
			return 0, describe(err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer)) // the answer's body is not kept
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			if resp.StatusCode >= 200 && resp.StatusCode < 300 {
				return resp.StatusCode, nil
			}
			return resp.StatusCode, fmt.Errorf("the receiver answered %s", resp.Status)
		}
		if hop == MaxRedirects {
			return resp.StatusCode, &permanentError{fmt.Errorf("more than %d redirects", MaxRedirects)}
		}
		next, err := redirectTarget(resp)
		if err != nil {
			return resp.StatusCode, err
		}
		target, c = next, d.redirected
	}
}

// redirectTarget is where a redirect leads, resolved against its request's URL.
func redirectTarget(resp *http.Response) (string, error) {
	loc, err := resp.Location()
	switch {
	case errors.Is(err, http.ErrNoLocation):
		return "", &permanentError{fmt.Errorf("the receiver answered %s without a Location", resp.Status)}
	case err != nil:
		return "", &permanentError{fmt.Errorf("the receiver redirected to an invalid URL: %w", err)}
	case loc.Scheme != "http" && loc.Scheme != "https":
		return "", &permanentError{fmt.Errorf("the receiver redirected to %s, which is not an http(s) URL", loc.Redacted())}
	}
	return loc.String(), nil
}

// AddressRefused is why a redirected delivery did not connect: the address
// is not public, and only the webhook's own URL may lead to such an address.
type AddressRefused struct {
	Address netip.Addr
	// Kind says what the address is, such as "a private address".
	Kind string
}

// Error names the address refused.
func (e *AddressRefused) Error() string {
	return fmt.Sprintf("a redirect led to %s (%s), which webhook deliveries follow only to public addresses", e.Kind, e.Address)
}

// refuseNonPublic is a net.Dialer Control function that refuses, before the
// connection is made, an address that is not public: the check is made on
// the address connected to, so a name that resolves to another address at
// each lookup (DNS rebinding) gains nothing.
func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	if kind := publicnet.NonPublicKind(ap.Addr()); kind != "" {
		return &AddressRefused{Address: ap.Addr().Unmap(), Kind: kind}
	}
	return nil
}

// describe says why a request got no answer; a refused address is permanent.
func describe(err error) error {
	var refused *AddressRefused
	if errors.As(err, &refused) {
		return &permanentError{refused}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) && urlErr.Timeout() {
		return fmt.Errorf("no answer within %s", Timeout)
	}
	return fmt.Errorf("no answer: %w", err)
}
