package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// The attacks on API credentials: a stolen token that tries to make itself
// permanent, and a token made with a password that an admin has reset.

func TestAPITokenMintingALongerLivedTokenIsRefused(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, olga := a.As(t, "olga", auth.Operator)
	expires := time.Now().Add(24 * time.Hour)
	shortLived, err := a.Deps.APITokens.Create(context.Background(), auth.Credential{User: olga}, "short-lived", &expires)
	require.NoError(t, err)

	for _, tc := range []struct {
		why       string
		expiresAt *time.Time
	}{
		{"a token that never expires", nil},
		{"a token that expires a day later", new(expires.Add(24 * time.Hour))},
	} {
		rec := a.Call(t, shortLived.Secret, http.MethodPost, "/api/v1/tokens", api.NewAPIToken{Name: "forever", ExpiresAt: tc.expiresAt})
		require.Equal(t, http.StatusBadRequest, rec.Code, tc.why)
		fields := problemOf(t, rec).Fields
		require.NotNil(t, fields, tc.why)
		require.Contains(t, *fields, "expires_at", tc.why)
	}
	rec := a.Call(t, shortLived.Secret, http.MethodPost, "/api/v1/tokens", api.NewAPIToken{Name: "shorter", ExpiresAt: new(expires.Add(-time.Hour))})
	require.Equal(t, http.StatusCreated, rec.Code, "a token that ends before its creator: %s", rec.Body.String())
}

func TestAPIAfterAPasswordResetTheUsersOldTokenGets401(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "ada", auth.Admin)
	_, bob := a.As(t, "bob", auth.Operator)
	bobs, err := a.Deps.APITokens.Create(context.Background(), auth.Credential{User: bob}, "made with the leaked password", nil)
	require.NoError(t, err)

	rec := a.Call(t, admin, http.MethodPatch, fmt.Sprintf("/api/v1/users/%d", bob.ID), api.UserChange{Password: new("bob's brand new password")})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	rec = a.Call(t, bobs.Secret, http.MethodGet, "/api/v1/me", nil)
	require.Equal(t, http.StatusUnauthorized, rec.Code, "the old token ended with the old password")
}

func TestAPIPasswordResetKeepsTheTokensWhenAsked(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "ada", auth.Admin)
	_, bob := a.As(t, "bob", auth.Operator)
	bobs, err := a.Deps.APITokens.Create(context.Background(), auth.Credential{User: bob}, "nightly backup", nil)
	require.NoError(t, err)

	rec := a.Call(t, admin, http.MethodPatch, fmt.Sprintf("/api/v1/users/%d", bob.ID),
		api.UserChange{Password: new("bob's brand new password"), RevokeApiTokens: new(false)})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	a.RequireTokenWorks(t, bobs.Secret, bob, "revoke_api_tokens: false keeps them")
}
