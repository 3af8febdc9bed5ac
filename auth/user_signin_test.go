package auth

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db/dbtest"
)

func newTestUsers(t *testing.T) *Users {
	t.Helper()
	users, err := NewUsers(dbtest.New(t))
	require.NoError(t, err)
	return users
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	alice, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Operator})
	require.NoError(t, err)

	u, err := users.SignIn(ctx, " Alice", "alice's password", "192.0.2.1")
	require.NoError(t, err)
	require.Equal(t, alice, u)

	for _, attempt := range []struct{ username, password string }{
		{"alice", "wrong password"},
		{"nobody", "alice's password"},
		{"alice", strings.Repeat("alice's password", 100)},
	} {
		_, err := users.SignIn(ctx, attempt.username, attempt.password, "192.0.2.1")
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
		require.EqualError(t, err, "Wrong username or password, or the user is disabled.", "the message does not tell which usernames exist")
	}
}

func TestSignInRefusesDisabledUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "root", Password: "root's password", Role: Admin})
	require.NoError(t, err)
	bob, err := users.Create(ctx, NewUser{Username: "bob", Password: "bob's password", Role: ReadOnly})
	require.NoError(t, err)
	_, err = users.SetDisabled(ctx, bob.ID, true)
	require.NoError(t, err)

	_, err = users.SignIn(ctx, "bob", "bob's password", "192.0.2.1")
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
}

func TestSignInThrottlesPerUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Admin})
	require.NoError(t, err)

	for i := range MaxFailuresPerUser {
		// From different addresses, so only the per-user limit applies.
		_, err := users.SignIn(ctx, "alice", "guess", fmt.Sprintf("192.0.2.%d", i))
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
	}
	_, err = users.SignIn(ctx, "alice", "alice's password", "198.51.100.7")
	require.Equal(t, styrmin.ETHROTTLED, styrmin.ErrorCode(err), "even the right password is refused while throttled")
	require.EqualError(t, err, "Too many failed sign-in attempts; try again in 15 minutes.")

	_, err = users.SignIn(ctx, "bob", "guess", "198.51.100.7")
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "other users are not affected")

	later := time.Now().Add(ThrottleWindow + time.Minute)
	users.now = func() time.Time { return later }
	_, err = users.SignIn(ctx, "alice", "alice's password", "198.51.100.7")
	require.NoError(t, err, "the window has passed")
}

func TestSignInThrottlesPerAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Admin})
	require.NoError(t, err)

	for i := range MaxFailuresPerAddr {
		// A different username each time, so only the per-address limit applies.
		_, err := users.SignIn(ctx, fmt.Sprintf("user%d", i), "guess", "203.0.113.9")
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
	}
	_, err = users.SignIn(ctx, "alice", "alice's password", "203.0.113.9")
	require.Equal(t, styrmin.ETHROTTLED, styrmin.ErrorCode(err))

	_, err = users.SignIn(ctx, "alice", "alice's password", "203.0.113.10")
	require.NoError(t, err, "other addresses are not affected")
}

func TestSuccessClearsTheUsersFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Admin})
	require.NoError(t, err)
	for range MaxFailuresPerUser - 1 {
		_, err := users.SignIn(ctx, "alice", "guess", "192.0.2.1")
		require.Error(t, err)
	}
	_, err = users.SignIn(ctx, "alice", "alice's password", "192.0.2.1")
	require.NoError(t, err)
	_, err = users.SignIn(ctx, "alice", "guess", "192.0.2.1")
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "the count started again after the success")
}

func TestThrottledMessageCountsMinutes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	u := &Users{now: func() time.Time { return now }}
	tests := []struct {
		oldest time.Time
		want   string
	}{
		{now, "try again in 15 minutes."},
		{now.Add(-14*time.Minute - 30*time.Second), "try again in 1 minute."},
		{now.Add(-20 * time.Minute), "try again in 1 minute."},
		{now.Add(-10 * time.Minute), "try again in 5 minutes."},
	}
	for _, tt := range tests {
		require.ErrorContains(t, u.throttled(tt.oldest), tt.want)
	}
}
