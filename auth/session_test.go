package auth_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
)

// sessionsBundle is a session keeper and a user store on one test database.
type sessionsBundle struct {
	sessions *auth.Sessions
	users    *auth.Users
}

func setupSessions(t *testing.T) sessionsBundle {
	t.Helper()
	pool := dbtest.New(t)
	s, err := auth.NewSessions([]byte(strings.Repeat("k", 32)), pool)
	require.NoError(t, err)
	users, err := auth.NewUsers(pool, auth.WithArgon2(auth.CheapArgon2()))
	require.NoError(t, err)
	return sessionsBundle{sessions: s, users: users}
}

// cookieOnly returns a session keeper without a database, for cookie-only tests.
func cookieOnly(t *testing.T, secret string) *auth.Sessions {
	t.Helper()
	s, err := auth.NewSessions([]byte(secret), nil)
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

// requestWith returns a request carrying cookie.
func requestWith(cookie *http.Cookie) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(cookie)
	return req
}

// signIn starts a session for u and returns the cookie the browser keeps.
func (b sessionsBundle) signIn(t *testing.T, u auth.User) (*auth.Session, *http.Cookie) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	sess := b.sessions.Load(req)
	require.NoError(t, b.sessions.Start(context.Background(), sess, u, "Mozilla/5.0 Firefox/133.0", "192.0.2.1"))
	return sess, roundTrip(t, b.sessions, req, sess)
}

// signedInAs returns who the cookie is signed in as, and whether anyone is.
func (b sessionsBundle) signedInAs(t *testing.T, cookie *http.Cookie) (auth.User, bool) {
	t.Helper()
	u, ok, err := b.sessions.Authenticate(context.Background(), b.sessions.Load(requestWith(cookie)))
	require.NoError(t, err)
	return u, ok
}

func TestAnonymousSessionRoundTrip(t *testing.T) {
	t.Parallel()
	s := cookieOnly(t, strings.Repeat("k", 32))
	req := httptest.NewRequest(http.MethodGet, "/", nil)

	fresh := s.Load(req)
	require.NotEmpty(t, fresh.CSRF, "even anonymous sessions carry a CSRF token")
	u, ok, err := s.Authenticate(context.Background(), fresh)
	require.NoError(t, err, "an anonymous session needs no database")
	require.False(t, ok)
	require.Zero(t, u)

	fresh.AddFlash("success", "Welcome")
	cookie := roundTrip(t, s, req, fresh)
	require.Equal(t, auth.SessionCookie, cookie.Name)
	require.True(t, cookie.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, cookie.SameSite)
	require.False(t, cookie.Secure, "plain HTTP")
	require.NotContains(t, cookie.Value, fresh.CSRF, "the cookie is encrypted")

	loaded := s.Load(requestWith(cookie))
	require.Equal(t, fresh.CSRF, loaded.CSRF)
	require.True(t, loaded.CheckCSRF(fresh.CSRF))
	require.False(t, loaded.CheckCSRF(""))
	require.False(t, loaded.CheckCSRF(fresh.CSRF+"x"))
	require.Equal(t, []auth.Flash{{Kind: "success", Message: "Welcome"}}, loaded.TakeFlashes())
	require.Empty(t, loaded.TakeFlashes(), "flashes are shown once")
}

func TestSessionCookieIsSecureUnderTLS(t *testing.T) {
	t.Parallel()
	s := cookieOnly(t, strings.Repeat("k", 32))
	req := httptest.NewRequest(http.MethodGet, "https://example.test/", nil)
	req.TLS = &tls.ConnectionState{}
	require.True(t, roundTrip(t, s, req, s.Load(req)).Secure)
}

func TestSignedInSession(t *testing.T) {
	t.Parallel()
	b := setupSessions(t)
	alice := createUser(t, b.users, "alice", auth.Operator)
	anonymousCSRF := b.sessions.Load(httptest.NewRequest(http.MethodGet, "/", nil)).CSRF

	sess, cookie := b.signIn(t, alice)
	require.NotEqual(t, anonymousCSRF, sess.CSRF)
	u, ok := b.signedInAs(t, cookie)
	require.True(t, ok)
	require.Equal(t, alice, u)
	require.Equal(t, sess.CSRF, b.sessions.Load(requestWith(cookie)).CSRF)
}

func TestSessionFromAnotherKeyIsAnonymous(t *testing.T) {
	t.Parallel()
	b := setupSessions(t)
	_, cookie := b.signIn(t, createUser(t, b.users, "alice", auth.Admin))

	loaded := cookieOnly(t, strings.Repeat("b", 32)).Load(requestWith(cookie))
	_, ok, err := b.sessions.Authenticate(context.Background(), loaded)
	require.NoError(t, err)
	require.False(t, ok, "a cookie made with another key is not read at all")
}

// TestCopiedCookieStopsWorkingAfterSignOut is the attack of issue 7: a cookie
// copied before sign-out used to work for 12 more hours.
func TestCopiedCookieStopsWorkingAfterSignOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSessions(t)
	sess, cookie := b.signIn(t, createUser(t, b.users, "root", auth.Admin))
	copied := *cookie

	require.NoError(t, b.sessions.End(ctx, sess))
	_, ok := b.signedInAs(t, &copied)
	require.False(t, ok, "the copied cookie is signed out too")
	_, ok = b.signedInAs(t, roundTrip(t, b.sessions, httptest.NewRequest(http.MethodGet, "/", nil), sess))
	require.False(t, ok)
}

// TestSignInReplacesThePreviousSession: a session id planted before sign-in
// (session fixation) is worthless after it.
func TestSignInReplacesThePreviousSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSessions(t)
	alice := createUser(t, b.users, "alice", auth.Operator)
	sess, planted := b.signIn(t, alice)

	require.NoError(t, b.sessions.Start(ctx, sess, alice, "", "192.0.2.1"))
	_, ok := b.signedInAs(t, planted)
	require.False(t, ok)
}

func TestDisablingOrResettingAPasswordEndsTheUsersSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSessions(t)
	createUser(t, b.users, "root", auth.Admin)
	bob := createUser(t, b.users, "bob", auth.Operator)
	carol := createUser(t, b.users, "carol", auth.Operator)

	_, bobCookie := b.signIn(t, bob)
	_, carolCookie := b.signIn(t, carol)
	_, err := b.users.SetDisabled(ctx, bob.ID, true)
	require.NoError(t, err)
	_, ok := b.signedInAs(t, bobCookie)
	require.False(t, ok, "disabled")
	_, err = b.users.SetDisabled(ctx, bob.ID, false)
	require.NoError(t, err)
	_, ok = b.signedInAs(t, bobCookie)
	require.False(t, ok, "enabling again does not bring the old session back")
	_, ok = b.signedInAs(t, carolCookie)
	require.True(t, ok, "other users are not affected")

	_, err = b.users.SetPassword(ctx, carol.ID, "carol's new password", auth.EndAPITokens)
	require.NoError(t, err)
	_, ok = b.signedInAs(t, carolCookie)
	require.False(t, ok, "password reset")
}

func TestRoleChangesApplyToTheLiveSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSessions(t)
	createUser(t, b.users, "root", auth.Admin)
	bob := createUser(t, b.users, "bob", auth.Admin)
	_, cookie := b.signIn(t, bob)

	_, err := b.users.SetRole(ctx, bob.ID, auth.ReadOnly)
	require.NoError(t, err)
	u, ok := b.signedInAs(t, cookie)
	require.True(t, ok)
	require.Equal(t, auth.ReadOnly, u.Role, "the role is read at every request")
}

func TestListAndEndOwnSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSessions(t)
	alice := createUser(t, b.users, "alice", auth.ReadOnly)
	mallory := createUser(t, b.users, "mallory", auth.Admin)
	_, laptop := b.signIn(t, alice)
	_, phone := b.signIn(t, alice)
	_, malloryCookie := b.signIn(t, mallory)

	here := b.sessions.Load(requestWith(laptop))
	_, ok, err := b.sessions.Authenticate(ctx, here)
	require.NoError(t, err)
	require.True(t, ok)
	list, err := b.sessions.List(ctx, here)
	require.NoError(t, err)
	require.Len(t, list, 2, "only alice's own sessions")
	current := 0
	var other auth.SessionInfo
	for _, s := range list {
		require.Equal(t, "192.0.2.1", s.Address)
		require.Equal(t, "Mozilla/5.0 Firefox/133.0", s.UserAgent)
		if s.Current {
			current++
		} else {
			other = s
		}
	}
	require.Equal(t, 1, current, "the session asking is marked")

	malloryHere := b.sessions.Load(requestWith(malloryCookie))
	_, _, err = b.sessions.Authenticate(ctx, malloryHere)
	require.NoError(t, err)
	err = b.sessions.EndOwn(ctx, malloryHere, other.ID)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "another user's session cannot be ended")
	_, ok = b.signedInAs(t, phone)
	require.True(t, ok)

	require.NoError(t, b.sessions.EndOwn(ctx, here, other.ID))
	_, ok = b.signedInAs(t, phone)
	require.False(t, ok, "the phone is signed out")
	_, ok = b.signedInAs(t, laptop)
	require.True(t, ok, "the laptop is still signed in")
}

func TestStoredUserAgentIsClean(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSessions(t)
	alice := createUser(t, b.users, "alice", auth.ReadOnly)
	sess := b.sessions.Load(httptest.NewRequest(http.MethodGet, "/", nil))
	require.NoError(t, b.sessions.Start(ctx, sess, alice, "bad\xff\x00agent"+strings.Repeat("x", 1000), "192.0.2.1"))
	list, err := b.sessions.List(ctx, sess)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.True(t, strings.HasPrefix(list[0].UserAgent, "bad\uFFFDagentxxx"), "invalid UTF-8 and NUL would make PostgreSQL refuse the row")
	require.Len(t, []rune(list[0].UserAgent), 256)
}

func TestNewSessionsRefusesShortKeys(t *testing.T) {
	t.Parallel()
	_, err := auth.NewSessions([]byte("short"), nil)
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
