package handlerstest

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// SignInByForm signs in through the sign-in page, as a browser does, and
// returns the signed-in Visitor with the CSRF token of their next page.
func (a *App) SignInByForm(t *testing.T, username string) Visitor {
	t.Helper()
	v := a.Anonymous(t)
	rec := a.Request(v, http.MethodPost, "/signin", url.Values{"username": {username}, "password": {TestPassword}}, "User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	v = v.Follow(rec)
	page := a.Request(v, http.MethodGet, "/account/sessions", nil)
	require.Equal(t, http.StatusOK, page.Code)
	v.CSRF = Parse(t, page).Find(`meta[name="csrf-token"]`).AttrOr("content", "")
	return v
}
