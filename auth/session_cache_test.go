package auth

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/lru"
)

// countingDB counts the statements sent to the database.
type countingDB struct {
	audit.Conn
	n atomic.Int64
}

func (c *countingDB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	c.n.Add(1)
	return c.Conn.Exec(ctx, sql, args...)
}

func (c *countingDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	c.n.Add(1)
	return c.Conn.Query(ctx, sql, args...)
}

func (c *countingDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	c.n.Add(1)
	return c.Conn.QueryRow(ctx, sql, args...)
}

// server is one simulated server process: its own session keeper and API
// token store, with its own notification listener, on a shared database.
type server struct {
	sessions *Sessions
	tokens   *APITokens
	// queries counts the statements its session keeper and token store sent.
	queries *countingDB
}

// newServer starts a server process on pool and waits until it listens.
func newServer(t *testing.T, pool *pgxpool.Pool) server {
	t.Helper()
	counting := &countingDB{Conn: pool}
	s, err := NewSessions([]byte(strings.Repeat("k", 32)), counting)
	require.NoError(t, err)
	tokens := NewAPITokens(counting)
	l := db.NewListener(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.ListenOn(l)
	tokens.ListenOn(l)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go l.Run(ctx)
	select {
	case <-l.Ready():
	case <-time.After(time.Minute):
		t.Fatal("the listener did not start")
	}
	return server{sessions: s, tokens: tokens, queries: counting}
}

// signedIn reports whether srv takes sess's cookie as signed in, and as whom.
func (srv server) signedIn(t *testing.T, sess *Session) (User, bool) {
	t.Helper()
	u, ok, err := srv.sessions.Authenticate(context.Background(), &Session{token: sess.token})
	require.NoError(t, err)
	return u, ok
}

// remembered signs sess in on srv and checks that srv now answers for it
// from memory, without a query.
func (srv server) remembered(t *testing.T, sess *Session) {
	t.Helper()
	_, ok := srv.signedIn(t, sess)
	require.True(t, ok)
	before, lookups := srv.queries.n.Load(), srv.sessions.CacheStats()
	_, ok = srv.signedIn(t, sess)
	require.True(t, ok)
	require.Equal(t, before, srv.queries.n.Load(), "the second request is answered from memory")
	require.Equal(t, lru.Stats{Hits: lookups.Hits + 1, Misses: lookups.Misses}, srv.sessions.CacheStats(), "and counted as a hit")
}

// soon is how long a change made by one server may take to reach another.
const soon = 5 * time.Second

// twoServers returns two server processes on one database and a user store
// on it that neither is told about, as a third process (the CLI) would be.
func twoServers(t *testing.T) (a, b server, users *Users) {
	t.Helper()
	users = newTestUsers(t)
	return newServer(t, users.pool), newServer(t, users.pool), users
}

func TestLiveSessionIsAnsweredFromMemoryWhileListening(t *testing.T) {
	t.Parallel()
	a, _, users := twoServers(t)
	alice, err := users.Create(context.Background(), NewUser{Username: "alice", Password: "alice's password", Role: Operator})
	require.NoError(t, err)
	a.remembered(t, start(t, a.sessions, alice))

	notListening, err := NewSessions([]byte(strings.Repeat("k", 32)), users.pool)
	require.NoError(t, err)
	_, _, err = notListening.Authenticate(context.Background(), &Session{token: start(t, notListening, alice).token})
	require.NoError(t, err)
	require.Zero(t, notListening.cache.len(), "without notifications, nothing is remembered")
	require.Equal(t, uint64(0), notListening.CacheStats().Hits, "every request went to PostgreSQL")
}

// TestSignOutOnAnotherServerEndsTheSessionEverywhere is the copied-cookie
// attack of issue 7 against two servers: the cookie, remembered by server A,
// is signed out on server B.
func TestSignOutOnAnotherServerEndsTheSessionEverywhere(t *testing.T) {
	t.Parallel()
	a, b, users := twoServers(t)
	root, err := users.Create(context.Background(), NewUser{Username: "root", Password: "root's password", Role: Admin})
	require.NoError(t, err)
	sess := start(t, b.sessions, root)
	copied := &Session{token: sess.token}
	a.remembered(t, copied)

	require.NoError(t, b.sessions.End(context.Background(), sess))
	_, ok := b.signedIn(t, copied)
	require.False(t, ok, "signed out at once where it was signed out")
	require.Eventually(t, func() bool { _, ok := a.signedIn(t, copied); return !ok }, soon, 10*time.Millisecond,
		"the copied cookie stops working on the other server too")
}

func TestEndingASessionOnAnotherServerEndsItEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, users := twoServers(t)
	alice, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Operator})
	require.NoError(t, err)
	laptop, phone := start(t, b.sessions, alice), start(t, a.sessions, alice)
	a.remembered(t, phone)
	a.remembered(t, laptop)

	require.NoError(t, b.sessions.EndOwn(ctx, laptop, phone.id))
	require.Eventually(t, func() bool { _, ok := a.signedIn(t, phone); return !ok }, soon, 10*time.Millisecond)
	_, ok := a.signedIn(t, laptop)
	require.True(t, ok, "the other session goes on")
}

func TestUserChangesElsewhereReachRememberedSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, users := twoServers(t)
	_, err := users.Create(ctx, NewUser{Username: "root", Password: "root's password", Role: Admin})
	require.NoError(t, err)
	bob, err := users.Create(ctx, NewUser{Username: "bob", Password: "bob's password", Role: Admin})
	require.NoError(t, err)
	carol, err := users.Create(ctx, NewUser{Username: "carol", Password: "carol's password", Role: Operator})
	require.NoError(t, err)
	dave, err := users.Create(ctx, NewUser{Username: "dave", Password: "dave's password", Role: Operator})
	require.NoError(t, err)
	bobs, carols, daves := start(t, a.sessions, bob), start(t, a.sessions, carol), start(t, a.sessions, dave)
	for _, s := range []*Session{bobs, carols, daves} {
		a.remembered(t, s)
	}

	_, err = users.SetRole(ctx, bob.ID, ReadOnly)
	require.NoError(t, err)
	require.Eventually(t, func() bool { u, ok := a.signedIn(t, bobs); return ok && u.Role == ReadOnly }, soon, 10*time.Millisecond,
		"a new role applies to the live session")

	_, err = users.SetDisabled(ctx, carol.ID, true)
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := a.signedIn(t, carols); return !ok }, soon, 10*time.Millisecond, "disabled")

	_, err = users.SetPassword(ctx, dave.ID, "dave's new password", EndAPITokens)
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := a.signedIn(t, daves); return !ok }, soon, 10*time.Millisecond, "password reset")

	u, ok := a.signedIn(t, bobs)
	require.True(t, ok, "bob was not disabled")
	require.Equal(t, ReadOnly, u.Role)
}

// TestUserChangesInThisProcessApplyAtOnce: the server where an admin
// disables a user forgets the user's sessions before answering, without
// waiting for the notification.
func TestUserChangesInThisProcessApplyAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, users := twoServers(t)
	users.InformSessions(a.sessions)
	_, err := users.Create(ctx, NewUser{Username: "root", Password: "root's password", Role: Admin})
	require.NoError(t, err)
	bob, err := users.Create(ctx, NewUser{Username: "bob", Password: "bob's password", Role: Admin})
	require.NoError(t, err)
	sess := start(t, a.sessions, bob)
	a.remembered(t, sess)

	_, err = users.SetRole(ctx, bob.ID, Operator)
	require.NoError(t, err)
	u, ok := a.signedIn(t, sess)
	require.True(t, ok)
	require.Equal(t, Operator, u.Role)
	_, err = users.SetDisabled(ctx, bob.ID, true)
	require.NoError(t, err)
	_, ok = a.signedIn(t, sess)
	require.False(t, ok)
}

func TestRememberedSessionIsReadAgainAfterItsTTL(t *testing.T) {
	t.Parallel()
	a, _, users := twoServers(t)
	alice, err := users.Create(context.Background(), NewUser{Username: "alice", Password: "alice's password", Role: Operator})
	require.NoError(t, err)
	clock := time.Now()
	a.sessions.now = func() time.Time { return clock }
	sess := start(t, a.sessions, alice)
	a.remembered(t, sess)

	clock = clock.Add(credentialCacheTTL)
	before := a.queries.n.Load()
	_, ok := a.signedIn(t, sess)
	require.True(t, ok)
	require.Greater(t, a.queries.n.Load(), before, "read from PostgreSQL again")
}
