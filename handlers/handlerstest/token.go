package handlerstest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
)

// CreateToken creates a token on the API tokens page as v and returns the
// secret the answer shows.
func (a *App) CreateToken(t *testing.T, v Visitor, form url.Values) string {
	t.Helper()
	rec := a.Request(v, http.MethodPost, "/account/tokens", form)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	secret := Text(Parse(t, rec).Find(`[data-testid="new-token"]`))
	require.True(t, strings.HasPrefix(secret, auth.APITokenPrefix), secret)
	return secret
}

// RequireTokenWorks reports whether secret authenticates as want.
func (a *App) RequireTokenWorks(t *testing.T, secret string, want auth.User, why string) {
	t.Helper()
	got, err := a.Deps.APITokens.Authenticate(context.Background(), secret)
	require.NoError(t, err, why)
	require.Equal(t, want.ID, got.ID, why)
}

func (a *App) RequireTokenRefused(t *testing.T, secret, why string) {
	t.Helper()
	_, err := a.Deps.APITokens.Authenticate(context.Background(), secret)
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), why)
}
