package db_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
)

// recorder is a subscriber that records what it is told, in order.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Listening(on bool) {
	r.add(map[bool]string{true: "on", false: "off"}[on])
}

func (r *recorder) Notify(payload string) { r.add("notify " + payload) }

func (r *recorder) add(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// TestListenerReconnects: notifications arrive in order; when the listening
// connection is killed the subscribers hear "off" (whatever they remember may
// be stale), and "on" once the listener is back, after which notifications
// arrive again.
func TestListenerReconnects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	l := db.NewListener(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var sessions, catalogue recorder
	l.Subscribe(db.SessionsChannel, &sessions)
	l.Subscribe(db.CatalogueChannel, &catalogue)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { l.Run(runCtx); close(done) }()
	<-l.Ready()

	q := db.New(pool)
	_, err := q.CreateUser(ctx, db.CreateUserParams{Username: "alice", PasswordHash: new("x"), Role: "operator"})
	require.NoError(t, err)
	u, err := q.SetUserRole(ctx, db.SetUserRoleParams{ID: 1, Role: "admin"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(sessions.seen()) == 2 }, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{"on", "notify user:1"}, sessions.seen(), "the trigger on users notifies")
	require.Equal(t, int64(1), u.ID)

	_, err = pool.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(catalogue.seen()) == 3 }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{"on", "off", "on"}, catalogue.seen())

	_, err = q.SetUserDisabled(ctx, db.SetUserDisabledParams{ID: 1, Disabled: true})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(sessions.seen()) == 5 }, 5*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{"on", "notify user:1", "off", "on", "notify user:1"}, sessions.seen())

	stop()
	<-done
	require.Equal(t, "off", catalogue.seen()[len(catalogue.seen())-1], "stopping says so too")
}
