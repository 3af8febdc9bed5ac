package handlers

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	a := setup(t)
	_, _ = a.as(t, "alice", auth.Admin)

	// The sign-in page sets the session cookie whose CSRF token its form carries.
	rec := a.request(visitor{}, http.MethodGet, "/signin?next=%2Fusers", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := parse(t, rec)
	token, _ := doc.Find(`input[name="_csrf"]`).Attr("value")
	meta, _ := doc.Find(`meta[name="csrf-token"]`).Attr("content")
	require.NotEmpty(t, token)
	require.Equal(t, token, meta, "htmx requests send the same token from the meta tag")
	next, _ := doc.Find(`input[name="next"]`).Attr("value")
	require.Equal(t, "/users", next)
	v := visitor{csrf: token}.follow(rec)

	rec = a.request(v, http.MethodPost, "/signin", url.Values{"username": {"alice"}, "password": {"wrong password"}, "next": {"/users"}})
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	doc = parse(t, rec)
	require.Equal(t, "Wrong username or password, or the user is disabled.", text(doc.Find(`[data-testid="signin-error"]`)))
	username, _ := doc.Find(`#username`).Attr("value")
	require.Equal(t, "alice", username, "the form keeps the username")

	rec = a.request(v, http.MethodPost, "/signin", url.Values{"username": {"alice"}, "password": {testPassword}, "next": {"/users"}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/users", rec.Header().Get("Location"))
	signedIn := v.follow(rec)

	rec = a.request(signedIn, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc = parse(t, rec)
	require.Equal(t, "alice", text(doc.Find(`[data-testid="current-user"]`)))
	require.Equal(t, "admin", text(doc.Find(`[data-testid="userbox"] [data-testid="role"]`)))
	require.NotEqual(t, token, doc.Find(`meta[name="csrf-token"]`).AttrOr("content", ""), "signing in renews the CSRF token")
	signedIn.csrf = doc.Find(`meta[name="csrf-token"]`).AttrOr("content", "")

	rec = a.request(signedIn, http.MethodGet, "/signin", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code, "a signed-in user is sent on")

	rec = a.request(signedIn, http.MethodPost, "/signout", url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin", rec.Header().Get("Location"))
	signedOut := signedIn.follow(rec)
	rec = a.request(signedOut, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin?next=%2Fusers", rec.Header().Get("Location"))
}

func TestSignInIsThrottled(t *testing.T) {
	t.Parallel()
	a := setup(t)
	_, _ = a.as(t, "alice", auth.Admin)
	v := a.anonymous(t)
	for range auth.MaxFailuresPerPair {
		rec := a.request(v, http.MethodPost, "/signin", url.Values{"username": {"alice"}, "password": {"guess"}})
		require.Equal(t, http.StatusUnauthorized, rec.Code)
	}
	rec := a.request(v, http.MethodPost, "/signin", url.Values{"username": {"alice"}, "password": {testPassword}})
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, "Too many failed sign-in attempts; try again in 15 minutes.", text(parse(t, rec).Find(`[data-testid="signin-error"]`)))
}

// signinFrom posts the sign-in form as v from address.
func (a *app) signinFrom(v visitor, address, username, password string) *httptest.ResponseRecorder {
	form := url.Values{"username": {username}, "password": {password}, views.CSRFField: {v.csrf}}
	req := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(form.Encode()))
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
	req.RemoteAddr = net.JoinHostPort(address, "40000")
	req.AddCookie(v.cookie)
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	return rec
}

// TestGuessingFromOneAddressDoesNotLockTheAdminOut is the lockout of issue 7
// over HTTP: wrong passwords for admin from address A refuse A, not the real
// admin at address B.
func TestGuessingFromOneAddressDoesNotLockTheAdminOut(t *testing.T) {
	t.Parallel()
	a := setup(t)
	_, _ = a.as(t, "admin", auth.Admin)
	attacker, owner := a.anonymous(t), a.anonymous(t)
	for range auth.MaxFailuresPerPair {
		require.Equal(t, http.StatusUnauthorized, a.signinFrom(attacker, "203.0.113.66", "admin", "guess").Code)
	}
	require.Equal(t, http.StatusTooManyRequests, a.signinFrom(attacker, "203.0.113.66", "admin", testPassword).Code)

	rec := a.signinFrom(owner, "198.51.100.7", "admin", testPassword)
	require.Equal(t, http.StatusSeeOther, rec.Code, "the admin signs in from another address")
	require.Equal(t, "/", rec.Header().Get("Location"))
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	a := setup(t)
	admin, _ := a.as(t, "root", auth.Admin)
	newUser := func() url.Values {
		return url.Values{"username": {"bob"}, "role": {"operator"}, "password": {testPassword}}
	}

	t.Run("missing token", func(t *testing.T) {
		form := newUser()
		form.Set(views.CSRFField, "")
		rec := a.request(admin, http.MethodPost, "/users", form)
		require.Equal(t, http.StatusForbidden, rec.Code)
		require.Contains(t, text(parse(t, rec).Find(`[data-testid="error-message"]`)), "security token (CSRF) is missing or out of date")
	})
	t.Run("token of another session", func(t *testing.T) {
		form := newUser()
		form.Set(views.CSRFField, a.anonymous(t).csrf)
		rec := a.request(admin, http.MethodPost, "/users", form)
		require.Equal(t, http.StatusForbidden, rec.Code)
	})
	t.Run("htmx request with the token in the header", func(t *testing.T) {
		form := newUser()
		form.Set(views.CSRFField, "")
		rec := a.request(admin, http.MethodPost, "/users", form, "HX-Request", "true", views.CSRFHeader, admin.csrf)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, "/users", rec.Header().Get("HX-Redirect"))
	})
	t.Run("htmx request without a token", func(t *testing.T) {
		form := url.Values{"username": {"carol"}, "role": {"operator"}, "password": {testPassword}, views.CSRFField: {""}}
		rec := a.request(admin, http.MethodPost, "/users", form, "HX-Request", "true")
		require.Equal(t, http.StatusForbidden, rec.Code)
		require.Equal(t, "#flash", rec.Header().Get("HX-Retarget"), "the refusal shows in the flash area")
		require.Contains(t, rec.Body.String(), "security token (CSRF)")
	})
	t.Run("token in the query string only", func(t *testing.T) {
		form := newUser()
		form.Set(views.CSRFField, "")
		rec := a.request(admin, http.MethodPost, "/users?"+views.CSRFField+"="+url.QueryEscape(admin.csrf), form)
		require.Equal(t, http.StatusForbidden, rec.Code, "URLs leak into logs and Referer headers")
	})
	t.Run("token in the query string of a bodyless post", func(t *testing.T) {
		rec := a.request(admin, http.MethodPost, "/signout?"+views.CSRFField+"="+url.QueryEscape(admin.csrf), nil)
		require.Equal(t, http.StatusForbidden, rec.Code)
	})
	t.Run("sign-in form", func(t *testing.T) {
		rec := a.request(visitor{}, http.MethodPost, "/signin", url.Values{"username": {"root"}, "password": {testPassword}})
		require.Equal(t, http.StatusForbidden, rec.Code, "no session, no token: refused before the password is checked")
	})
}

func TestAnonymousHTMXRequestIsRedirectedWithAHeader(t *testing.T) {
	t.Parallel()
	a := setup(t)
	rec := a.request(a.anonymous(t), http.MethodGet, "/users", nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "/signin?next=%2Fusers", rec.Header().Get("HX-Redirect"))
}

func TestSessionEndsWhenTheUserChanges(t *testing.T) {
	t.Parallel()
	a := setup(t)
	admin, _ := a.as(t, "root", auth.Admin)
	bob, bobUser := a.as(t, "bob", auth.Operator)
	require.Equal(t, http.StatusSeeOther, a.request(bob, http.MethodGet, "/", nil).Code)
	require.Equal(t, "/drivers", a.request(bob, http.MethodGet, "/", nil).Header().Get("Location"))

	rec := a.request(admin, http.MethodPost, userURL(bobUser.ID, "disable"), url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code)

	rec = a.request(bob, http.MethodGet, "/", nil)
	require.Equal(t, "/signin", rec.Header().Get("Location"), "bob's session ended when he was disabled")
}
