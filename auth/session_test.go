package auth_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
)

func newSessions(t *testing.T, secret string) *auth.Sessions {
	t.Helper()
	s, err := auth.NewSessions([]byte(secret))
	require.NoError(t, err)
	return s
}

// roundTrip saves sess and returns the cookie the browser would send back.
func roundTrip(t *testing.T, s *auth.Sessions, req *http.Request, sess *auth.Session) *http.Cookie {
	t.Helper()
	rec := httptest.NewRecorder()
	require.NoError(t, s.Save(rec, req, sess))
	cookies := rec.Result().Cookies()
	require.Len(t, cookies, 1)
	return cookies[0]
}

func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	s := newSessions(t, strings.Repeat("k", 32))
	req := httptest.NewRequest(http.MethodGet, "/", nil)

	fresh := s.Load(req)
	require.Zero(t, fresh.UserID)
	require.NotEmpty(t, fresh.CSRF, "even anonymous sessions carry a CSRF token")

	fresh.SignIn(auth.User{ID: 7, SessionEpoch: 3})
	fresh.AddFlash("success", "Welcome")
	cookie := roundTrip(t, s, req, fresh)
	require.Equal(t, auth.SessionCookie, cookie.Name)
	require.True(t, cookie.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, cookie.SameSite)
	require.False(t, cookie.Secure, "plain HTTP")
	require.NotContains(t, cookie.Value, fresh.CSRF, "the cookie is encrypted")

	next := httptest.NewRequest(http.MethodGet, "/", nil)
	next.AddCookie(cookie)
	loaded := s.Load(next)
	require.Equal(t, int64(7), loaded.UserID)
	require.Equal(t, int32(3), loaded.Epoch)
	require.Equal(t, fresh.CSRF, loaded.CSRF)
	require.True(t, loaded.CheckCSRF(fresh.CSRF))
	require.False(t, loaded.CheckCSRF(""))
	require.False(t, loaded.CheckCSRF(fresh.CSRF+"x"))
	require.Equal(t, []auth.Flash{{Kind: "success", Message: "Welcome"}}, loaded.TakeFlashes())
	require.Empty(t, loaded.TakeFlashes(), "flashes are shown once")
}

func TestSessionCookieIsSecureUnderTLS(t *testing.T) {
	t.Parallel()
	s := newSessions(t, strings.Repeat("k", 32))
	req := httptest.NewRequest(http.MethodGet, "https://example.test/", nil)
	req.TLS = &tls.ConnectionState{}
	require.True(t, roundTrip(t, s, req, s.Load(req)).Secure)
}

func TestSessionFromAnotherKeyIsAnonymous(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	theirs := newSessions(t, strings.Repeat("a", 32))
	sess := theirs.Load(req)
	sess.SignIn(auth.User{ID: 1})
	cookie := roundTrip(t, theirs, req, sess)

	forged := httptest.NewRequest(http.MethodGet, "/", nil)
	forged.AddCookie(cookie)
	loaded := newSessions(t, strings.Repeat("b", 32)).Load(forged)
	require.Zero(t, loaded.UserID)
	require.NotEqual(t, sess.CSRF, loaded.CSRF)
}

func TestSessionValidFor(t *testing.T) {
	t.Parallel()
	sess := &auth.Session{}
	u := auth.User{ID: 5, SessionEpoch: 2}
	sess.SignIn(u)
	require.True(t, sess.ValidFor(u))
	require.False(t, sess.ValidFor(auth.User{ID: 5, SessionEpoch: 3}), "password or role changed since")
	require.False(t, sess.ValidFor(auth.User{ID: 5, SessionEpoch: 2, Disabled: true}))
	require.False(t, sess.ValidFor(auth.User{ID: 6, SessionEpoch: 2}))
	sess.SignOut()
	require.False(t, sess.ValidFor(u))
}

func TestNewSessionsRefusesShortKeys(t *testing.T) {
	t.Parallel()
	_, err := auth.NewSessions([]byte("short"))
	require.ErrorContains(t, err, "at least 32")
}

func TestSessionSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := db.New(dbtest.New(t))

	fromEnv, err := auth.SessionSecret(ctx, q, strings.Repeat("e", 40))
	require.NoError(t, err)
	require.Equal(t, []byte(strings.Repeat("e", 40)), fromEnv)

	_, err = auth.SessionSecret(ctx, q, "too short")
	require.ErrorContains(t, err, "STYRMIN_SESSION_KEY has 9 characters")

	first, err := auth.SessionSecret(ctx, q, "")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(first), auth.MinSessionKeyLength)
	again, err := auth.SessionSecret(ctx, q, "")
	require.NoError(t, err)
	require.Equal(t, first, again, "generated once, then kept in the database")
}
