package auth

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
)

func TestChangeOwnPasswordNeedsTheCurrentOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	alice, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's first password", Role: ReadOnly})
	require.NoError(t, err)

	_, err = users.ChangeOwnPassword(ctx, alice, "a guess", "alice's second password", "192.0.2.7")
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Contains(t, styrmin.ErrorFields(err), "current_password")
	_, err = users.ChangeOwnPassword(ctx, alice, "alice's first password", "short", "192.0.2.7")
	require.Contains(t, styrmin.ErrorFields(err), "password", "the new password is checked like any")
	_, err = users.SignIn(ctx, "alice", "alice's first password", "192.0.2.7")
	require.NoError(t, err, "nothing changed")

	_, err = users.ChangeOwnPassword(ctx, alice, "alice's first password", "alice's second password", "192.0.2.7")
	require.NoError(t, err)
	_, err = users.SignIn(ctx, "alice", "alice's first password", "192.0.2.7")
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
	_, err = users.SignIn(ctx, "alice", "alice's second password", "192.0.2.7")
	require.NoError(t, err)
}

// TestChangeOwnPasswordIsThrottledLikeSignIn: a stolen session cannot guess
// its user's password through the change form faster than through sign-in.
func TestChangeOwnPasswordIsThrottledLikeSignIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	bob, err := users.Create(ctx, NewUser{Username: "bob", Password: "bob's real password", Role: Operator})
	require.NoError(t, err)
	for range MaxFailuresPerPair {
		_, err := users.ChangeOwnPassword(ctx, bob, "wrong guess", "a new password for bob", "198.51.100.4")
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	}
	_, err = users.ChangeOwnPassword(ctx, bob, "bob's real password", "a new password for bob", "198.51.100.4")
	require.Equal(t, styrmin.ETHROTTLED, styrmin.ErrorCode(err), "even the right password waits once the guesses are used up")
}
