package auth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/lru"
)

// acts reports whether srv takes token, and as whom.
func (srv server) acts(t *testing.T, token string) (User, bool) {
	t.Helper()
	u, err := srv.tokens.Authenticate(context.Background(), token)
	if err != nil {
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "a refused token is unauthorized: %v", err)
		return User{}, false
	}
	return u.User, true
}

// rememberedToken calls srv with token and checks that srv now answers for
// it from memory, without a query.
func (srv server) rememberedToken(t *testing.T, token string) {
	t.Helper()
	_, ok := srv.acts(t, token)
	require.True(t, ok)
	before, lookups := srv.queries.n.Load(), srv.tokens.CacheStats()
	_, ok = srv.acts(t, token)
	require.True(t, ok)
	require.Equal(t, before, srv.queries.n.Load(), "the second call is answered from memory")
	require.Equal(t, lru.Stats{Hits: lookups.Hits + 1, Misses: lookups.Misses}, srv.tokens.CacheStats(), "and counted as a hit")
}

// newToken creates a token of u on srv and returns its secret.
func (srv server) newToken(t *testing.T, u User) (id int64, secret string) {
	t.Helper()
	created, err := srv.tokens.Create(context.Background(), Credential{User: u}, "script", nil)
	require.NoError(t, err)
	return created.ID, created.Secret
}

func TestLiveAPITokenIsAnsweredFromMemoryWhileListening(t *testing.T) {
	t.Parallel()
	a, _, users := twoServers(t)
	alice, err := users.Create(context.Background(), NewUser{Username: "alice", Password: "alice's password", Role: Operator})
	require.NoError(t, err)
	_, secret := a.newToken(t, alice)
	a.rememberedToken(t, secret)

	notListening := NewAPITokens(users.pool)
	_, err = notListening.Authenticate(context.Background(), secret)
	require.NoError(t, err)
	require.Zero(t, notListening.cache.len(), "without notifications, nothing is remembered")
	require.Equal(t, lru.Stats{Misses: 1}, notListening.CacheStats(), "the call went to PostgreSQL")
}

// TestAPITokenRevokedOnAnotherServerStopsWorkingEverywhere is the copied
// cookie attack for API tokens: the token, remembered by server A, is
// revoked on server B, then straight in the database as psql would.
func TestAPITokenRevokedOnAnotherServerStopsWorkingEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, users := twoServers(t)
	root, err := users.Create(ctx, NewUser{Username: "root", Password: "root's password", Role: Admin})
	require.NoError(t, err)
	id, secret := b.newToken(t, root)
	_, other := b.newToken(t, root)
	a.rememberedToken(t, secret)
	a.rememberedToken(t, other)

	require.NoError(t, b.tokens.Revoke(ctx, root, id))
	_, ok := b.acts(t, secret)
	require.False(t, ok, "refused at once where it was revoked")
	require.Eventually(t, func() bool { _, ok := a.acts(t, secret); return !ok }, soon, 10*time.Millisecond,
		"the revoked token stops working on the other server too")
	_, ok = a.acts(t, other)
	require.True(t, ok, "the user's other token goes on")

	_, err = users.pool.Exec(ctx, "DELETE FROM api_tokens")
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := a.acts(t, other); return !ok }, soon, 10*time.Millisecond,
		"a token deleted in the database stops working")
}

func TestUserChangesElsewhereReachRememberedAPITokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, users := twoServers(t)
	bob, err := users.Create(ctx, NewUser{Username: "bob", Password: "bob's password", Role: Operator})
	require.NoError(t, err)
	carol, err := users.Create(ctx, NewUser{Username: "carol", Password: "carol's password", Role: Operator})
	require.NoError(t, err)
	_, bobs := a.newToken(t, bob)
	_, carols := a.newToken(t, carol)
	a.rememberedToken(t, bobs)
	a.rememberedToken(t, carols)

	_, err = users.SetRole(ctx, bob.ID, ReadOnly)
	require.NoError(t, err)
	require.Eventually(t, func() bool { u, ok := a.acts(t, bobs); return ok && u.Role == ReadOnly }, soon, 10*time.Millisecond,
		"a new role applies to the token")

	_, err = users.SetDisabled(ctx, carol.ID, true)
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, ok := a.acts(t, carols); return !ok }, soon, 10*time.Millisecond,
		"a disabled user's token stops working")
}

// TestUserChangesInThisProcessReachAPITokensAtOnce: the server where an
// admin disables a user forgets the user's tokens before answering.
func TestUserChangesInThisProcessReachAPITokensAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, users := twoServers(t)
	users.InformAPITokens(a.tokens)
	bob, err := users.Create(ctx, NewUser{Username: "bob", Password: "bob's password", Role: Operator})
	require.NoError(t, err)
	_, secret := a.newToken(t, bob)
	a.rememberedToken(t, secret)

	_, err = users.SetDisabled(ctx, bob.ID, true)
	require.NoError(t, err)
	_, ok := a.acts(t, secret)
	require.False(t, ok)
}

func TestRememberedAPITokenStopsAtItsExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, users := twoServers(t)
	alice, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Operator})
	require.NoError(t, err)
	clock := time.Now()
	a.tokens.now = func() time.Time { return clock }
	expires := clock.Add(10 * time.Second)
	created, err := a.tokens.Create(ctx, Credential{User: alice}, "short-lived", &expires)
	require.NoError(t, err)
	a.rememberedToken(t, created.Secret)
	remembered, err := a.tokens.Authenticate(ctx, created.Secret)
	require.NoError(t, err)
	require.Equal(t, expires.UnixMicro(), remembered.ExpiresAt.UnixMicro(), "a remembered token still says when it expires")

	clock = expires
	_, ok := a.acts(t, created.Secret)
	require.False(t, ok, "a remembered token does not outlive its expiry")
}
