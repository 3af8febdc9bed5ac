package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db/dbtest"
)

// tokenWorld is a user store and a token store on one database, with a
// clock the test moves.
type tokenWorld struct {
	users  *Users
	tokens *APITokens
	clock  time.Time
}

func newTokenWorld(t *testing.T) *tokenWorld {
	t.Helper()
	pool := dbtest.New(t)
	users, err := NewUsers(pool, WithArgon2(CheapArgon2()))
	require.NoError(t, err)
	w := &tokenWorld{users: users, tokens: NewAPITokens(pool), clock: time.Now()}
	w.tokens.now = func() time.Time { return w.clock }
	return w
}

func (w *tokenWorld) user(t *testing.T, name string, role Role) User {
	t.Helper()
	u, err := w.users.Create(context.Background(), NewUser{Username: name, Password: "password-of-" + name, Role: role})
	require.NoError(t, err)
	return u
}

func TestAPITokenActsAsItsUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newTokenWorld(t)
	alice := w.user(t, "alice", Operator)

	created, err := w.tokens.Create(ctx, Credential{User: alice}, "  deploy script ", nil)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(created.Secret, APITokenPrefix))
	require.Equal(t, "deploy script", created.Name)
	require.Nil(t, created.LastUsedAt)

	got, err := w.tokens.Authenticate(ctx, created.Secret)
	require.NoError(t, err)
	require.Equal(t, alice.ID, got.User.ID)
	require.Equal(t, Operator, got.User.Role)

	_, err = w.users.SetRole(ctx, alice.ID, ReadOnly)
	require.NoError(t, err)
	got, err = w.tokens.Authenticate(ctx, created.Secret)
	require.NoError(t, err)
	require.Equal(t, ReadOnly, got.User.Role, "a token has its user's current role, not the one at creation")

	list, err := w.tokens.List(ctx, alice)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.NotNil(t, list[0].LastUsedAt, "the list shows when the token was last used")
}

func TestAPITokenLastUseIsWrittenAtMostOnceAMinute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newTokenWorld(t)
	alice := w.user(t, "alice", Operator)
	created, err := w.tokens.Create(ctx, Credential{User: alice}, "poller", nil)
	require.NoError(t, err)
	lastUsed := func() time.Time {
		t.Helper()
		list, err := w.tokens.List(ctx, alice)
		require.NoError(t, err)
		require.NotNil(t, list[0].LastUsedAt)
		return *list[0].LastUsedAt
	}
	use := func(after time.Duration) {
		t.Helper()
		w.clock = w.clock.Add(after)
		_, err := w.tokens.Authenticate(ctx, created.Secret)
		require.NoError(t, err)
	}

	use(0)
	first := w.clock
	require.WithinDuration(t, first, lastUsed(), time.Millisecond)
	use(30 * time.Second)
	use(29 * time.Second)
	require.WithinDuration(t, first, lastUsed(), time.Millisecond, "uses within a minute of the recorded one write nothing")
	use(2 * time.Second)
	require.WithinDuration(t, w.clock, lastUsed(), time.Millisecond, "a use over a minute after the recorded one is recorded")
}

func TestAPITokenRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newTokenWorld(t)
	alice := w.user(t, "alice", Admin)
	bob := w.user(t, "bob", Operator)
	expiry := w.clock.Add(time.Hour)

	expiring, err := w.tokens.Create(ctx, Credential{User: bob}, "expiring", &expiry)
	require.NoError(t, err)
	revoked, err := w.tokens.Create(ctx, Credential{User: bob}, "revoked", nil)
	require.NoError(t, err)
	require.NoError(t, w.tokens.Revoke(ctx, bob, revoked.ID))
	kept, err := w.tokens.Create(ctx, Credential{User: bob}, "kept", nil)
	require.NoError(t, err)

	refuse := func(secret, why string) {
		t.Helper()
		_, err := w.tokens.Authenticate(ctx, secret)
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), why)
	}
	refuse(revoked.Secret, "a revoked token")
	refuse(kept.Secret[:len(kept.Secret)-1]+"x", "a token with one character changed")
	refuse("sta_"+strings.TrimPrefix(kept.Secret, APITokenPrefix), "an action token's prefix")
	refuse("", "no token")

	w.clock = expiry
	refuse(expiring.Secret, "a token at its expiry")
	_, err = w.tokens.Authenticate(ctx, kept.Secret)
	require.NoError(t, err, "a token without expiry lasts")

	_, err = w.users.SetDisabled(ctx, bob.ID, true)
	require.NoError(t, err)
	refuse(kept.Secret, "the token of a disabled user")
	_, err = w.users.SetDisabled(ctx, bob.ID, false)
	require.NoError(t, err)
	_, err = w.tokens.Authenticate(ctx, kept.Secret)
	require.NoError(t, err, "enabling the user again revives the token; revoke it to end it")

	require.NoError(t, w.tokens.Revoke(ctx, alice, kept.ID), "an admin revokes anyone's token")
	refuse(kept.Secret, "a token an admin revoked")
}

func TestAPITokenRevokeOnlyYourOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newTokenWorld(t)
	bob := w.user(t, "bob", Operator)
	carol := w.user(t, "carol", Operator)
	bobs, err := w.tokens.Create(ctx, Credential{User: bob}, "bob's", nil)
	require.NoError(t, err)

	err = w.tokens.Revoke(ctx, carol, bobs.ID)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "another user's token is not found, so ids reveal nothing")
	_, err = w.tokens.Authenticate(ctx, bobs.Secret)
	require.NoError(t, err, "the refused revocation changed nothing")

	list, err := w.tokens.List(ctx, carol)
	require.NoError(t, err)
	require.Empty(t, list, "a user lists only their own tokens")
}

func TestAPITokenCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newTokenWorld(t)
	bob := w.user(t, "bob", ReadOnly)
	past := w.clock.Add(-time.Second)
	for _, tc := range []struct {
		why, name, field string
		expires          *time.Time
	}{
		{"no name", "  ", "name", nil},
		{"a long name", strings.Repeat("n", maxTokenName+1), "name", nil},
		{"an expiry in the past", "script", "expires_at", &past},
	} {
		_, err := w.tokens.Create(ctx, Credential{User: bob}, tc.name, tc.expires)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), tc.why)
		require.Contains(t, styrmin.ErrorFields(err), tc.field, tc.why)
	}
}

func TestATokenNeverOutlivesTheTokenThatCreatesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newTokenWorld(t)
	bob := w.user(t, "bob", Operator)
	ends := w.clock.Add(24 * time.Hour)
	creator := Credential{User: bob, ExpiresAt: &ends}
	for _, tc := range []struct {
		why     string
		expires *time.Time
		refused bool
	}{
		{"a token that never expires", nil, true},
		{"a token that expires a second later", new(ends.Add(time.Second)), true},
		{"a token that expires with it", &ends, false},
		{"a token that expires earlier", new(ends.Add(-time.Hour)), false},
	} {
		_, err := w.tokens.Create(ctx, creator, "minted", tc.expires)
		if tc.refused {
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), tc.why)
			require.Contains(t, styrmin.ErrorFields(err), "expires_at", tc.why)
		} else {
			require.NoError(t, err, tc.why)
		}
	}
	_, err := w.tokens.Create(ctx, Credential{User: bob}, "forever", nil)
	require.NoError(t, err, "a session, the command line or a token without expiry may create a token that never expires")
}

func TestAPasswordResetEndsTheUsersAPITokensUnlessKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newTokenWorld(t)
	bob := w.user(t, "bob", Operator)
	leaked, err := w.tokens.Create(ctx, Credential{User: bob}, "made with the leaked password", nil)
	require.NoError(t, err)

	_, err = w.users.SetPassword(ctx, bob.ID, "bob's second password", KeepAPITokens)
	require.NoError(t, err)
	_, err = w.tokens.Authenticate(ctx, leaked.Secret)
	require.NoError(t, err, "kept when asked")

	_, err = w.users.SetPassword(ctx, bob.ID, "bob's third password", EndAPITokens)
	require.NoError(t, err)
	_, err = w.tokens.Authenticate(ctx, leaked.Secret)
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "ended with the reset")
}

func TestChangingYourOwnPasswordKeepsYourAPITokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newTokenWorld(t)
	bob := w.user(t, "bob", Operator)
	script, err := w.tokens.Create(ctx, Credential{User: bob}, "nightly backup", nil)
	require.NoError(t, err)

	_, err = w.users.ChangeOwnPassword(ctx, bob, "password-of-bob", "bob's brand new password", "192.0.2.1")
	require.NoError(t, err)
	_, err = w.tokens.Authenticate(ctx, script.Secret)
	require.NoError(t, err, "proving the current password is not a reset: the user's scripts keep working")
}
