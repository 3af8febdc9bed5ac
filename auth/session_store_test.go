package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
)

// clockedSessions returns a session keeper on users' database whose clock
// the test moves, and a signed-in user.
func clockedSessions(t *testing.T) (*Sessions, User, *time.Time) {
	t.Helper()
	users := newTestUsers(t)
	s, err := NewSessions([]byte(strings.Repeat("k", 32)), users.pool)
	require.NoError(t, err)
	clock := time.Now().Truncate(time.Second)
	s.now = func() time.Time { return clock }
	alice, err := users.Create(context.Background(), NewUser{Username: "alice", Password: "alice's password", Role: Operator})
	require.NoError(t, err)
	return s, alice, &clock
}

// start signs alice in on a new session.
func start(t *testing.T, s *Sessions, u User) *Session {
	t.Helper()
	sess := &Session{}
	require.NoError(t, s.Start(context.Background(), sess, u, "test", "192.0.2.1"))
	return sess
}

// live reports whether a request carrying sess's cookie is signed in.
func live(t *testing.T, s *Sessions, sess *Session) bool {
	t.Helper()
	_, ok, err := s.Authenticate(context.Background(), &Session{token: sess.token})
	require.NoError(t, err)
	return ok
}

func TestSessionEndsAfterIdleTimeout(t *testing.T) {
	t.Parallel()
	s, alice, clock := clockedSessions(t)
	sess := start(t, s, alice)

	*clock = clock.Add(IdleTimeout - time.Minute)
	require.True(t, live(t, s, sess))
	*clock = clock.Add(IdleTimeout - time.Minute)
	require.True(t, live(t, s, sess), "each request restarts the idle timeout")
	*clock = clock.Add(IdleTimeout + time.Second)
	require.False(t, live(t, s, sess), "idle for longer than the timeout")
}

func TestSessionEndsAfterItsAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	s, alice, clock := clockedSessions(t)
	started := *clock
	sess := start(t, s, alice)

	for clock.Before(started.Add(AbsoluteLifetime - time.Hour)) {
		*clock = clock.Add(time.Hour)
		require.True(t, live(t, s, sess))
	}
	*clock = started.Add(AbsoluteLifetime + time.Second)
	require.False(t, live(t, s, sess), "used every hour, yet over its lifetime")
}

func TestLastSeenIsWrittenAtMostOnceAMinute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, alice, clock := clockedSessions(t)
	started := *clock
	sess := start(t, s, alice)
	lastSeen := func() time.Time {
		list, err := s.List(ctx, sess)
		require.NoError(t, err)
		require.Len(t, list, 1)
		return list[0].LastSeenAt
	}

	*clock = started.Add(30 * time.Second)
	require.True(t, live(t, s, sess))
	require.True(t, started.Equal(lastSeen()), "no write within a minute")

	*clock = started.Add(lastSeenPrecision + time.Second)
	require.True(t, live(t, s, sess))
	require.True(t, clock.Equal(lastSeen()), "written once the minute has passed")
}

func TestDeleteDeadSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, alice, clock := clockedSessions(t)
	old := start(t, s, alice)
	*clock = clock.Add(IdleTimeout + time.Minute)
	fresh := start(t, s, alice)

	require.NoError(t, s.DeleteDead(ctx))
	n, err := s.q.DeleteUserSession(ctx, db.DeleteUserSessionParams{ID: old.id, UserID: alice.ID})
	require.NoError(t, err)
	require.Zero(t, n, "the idle session's row is gone")
	require.True(t, live(t, s, fresh))
}
