package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, _ = a.As(t, "alice", auth.Admin)

	// The sign-in page sets the session cookie whose CSRF token its form carries.
	rec := a.Request(handlerstest.Visitor{}, http.MethodGet, "/signin?next=%2Fusers", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	token, _ := doc.Find(`input[name="_csrf"]`).Attr("value")
	meta, _ := doc.Find(`meta[name="csrf-token"]`).Attr("content")
	require.NotEmpty(t, token)
	require.Equal(t, token, meta, "htmx requests send the same token from the meta tag")
	next, _ := doc.Find(`input[name="next"]`).Attr("value")
	require.Equal(t, "/users", next)
	v := handlerstest.Visitor{CSRF: token}.Follow(rec)

	rec = a.Request(v, http.MethodPost, "/signin", url.Values{"username": {"alice"}, "password": {"wrong password"}, "next": {"/users"}})
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, "Wrong username or password, or the user is disabled.", handlerstest.Text(doc.Find(`[data-testid="signin-error"]`)))
	username, _ := doc.Find(`#username`).Attr("value")
	require.Equal(t, "alice", username, "the form keeps the username")

	rec = a.Request(v, http.MethodPost, "/signin", url.Values{"username": {"alice"}, "password": {handlerstest.TestPassword}, "next": {"/users"}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/users", rec.Header().Get("Location"))
	signedIn := v.Follow(rec)

	rec = a.Request(signedIn, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, "alice", handlerstest.Text(doc.Find(`[data-testid="current-user"]`)))
	require.Equal(t, "admin", handlerstest.Text(doc.Find(`[data-testid="userbox"] [data-testid="role"]`)))
	require.NotEqual(t, token, doc.Find(`meta[name="csrf-token"]`).AttrOr("content", ""), "signing in renews the CSRF token")
	signedIn.CSRF = doc.Find(`meta[name="csrf-token"]`).AttrOr("content", "")

	rec = a.Request(signedIn, http.MethodGet, "/signin", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code, "a signed-in user is sent on")

	rec = a.Request(signedIn, http.MethodPost, "/signout", url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin", rec.Header().Get("Location"))
	signedOut := signedIn.Follow(rec)
	rec = a.Request(signedOut, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin?next=%2Fusers", rec.Header().Get("Location"))
}

func TestSignInIsThrottled(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, _ = a.As(t, "alice", auth.Admin)
	v := a.Anonymous(t)
	for range auth.MaxFailuresPerPair {
		rec := a.Request(v, http.MethodPost, "/signin", url.Values{"username": {"alice"}, "password": {"guess"}})
		require.Equal(t, http.StatusUnauthorized, rec.Code)
	}
	rec := a.Request(v, http.MethodPost, "/signin", url.Values{"username": {"alice"}, "password": {handlerstest.TestPassword}})
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Equal(t, "Too many failed sign-in attempts; try again in 15 minutes.", handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="signin-error"]`)))
}

// TestGuessingFromOneAddressDoesNotLockTheAdminOut is the lockout of issue 7
// over HTTP: wrong passwords for admin from address A refuse A, not the real
// admin at address B.
func TestGuessingFromOneAddressDoesNotLockTheAdminOut(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, _ = a.As(t, "admin", auth.Admin)
	attacker, owner := a.Anonymous(t), a.Anonymous(t)
	for range auth.MaxFailuresPerPair {
		require.Equal(t, http.StatusUnauthorized, a.SigninFrom(attacker, "203.0.113.66", "admin", "guess").Code)
	}
	require.Equal(t, http.StatusTooManyRequests, a.SigninFrom(attacker, "203.0.113.66", "admin", handlerstest.TestPassword).Code)

	rec := a.SigninFrom(owner, "198.51.100.7", "admin", handlerstest.TestPassword)
	require.Equal(t, http.StatusSeeOther, rec.Code, "the admin signs in from another address")
	require.Equal(t, "/", rec.Header().Get("Location"))
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	newUser := func() url.Values {
		return url.Values{"username": {"bob"}, "role": {"operator"}, "password": {handlerstest.TestPassword}}
	}

	t.Run("missing token", func(t *testing.T) {
		form := newUser()
		form.Set(views.CSRFField, "")
		rec := a.Request(admin, http.MethodPost, "/users", form)
		require.Equal(t, http.StatusForbidden, rec.Code)
		require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-message"]`)), "security token (CSRF) is missing or out of date")
	})
	t.Run("token of another session", func(t *testing.T) {
		form := newUser()
		form.Set(views.CSRFField, a.Anonymous(t).CSRF)
		rec := a.Request(admin, http.MethodPost, "/users", form)
		require.Equal(t, http.StatusForbidden, rec.Code)
	})
	t.Run("htmx request with the token in the header", func(t *testing.T) {
		form := newUser()
		form.Set(views.CSRFField, "")
		rec := a.Request(admin, http.MethodPost, "/users", form, "HX-Request", "true", views.CSRFHeader, admin.CSRF)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, "/users", rec.Header().Get("HX-Redirect"))
	})
	t.Run("htmx request without a token", func(t *testing.T) {
		form := url.Values{"username": {"carol"}, "role": {"operator"}, "password": {handlerstest.TestPassword}, views.CSRFField: {""}}
		rec := a.Request(admin, http.MethodPost, "/users", form, "HX-Request", "true")
		require.Equal(t, http.StatusForbidden, rec.Code)
		require.Equal(t, "#flash", rec.Header().Get("HX-Retarget"), "the refusal shows in the flash area")
		require.Contains(t, rec.Body.String(), "security token (CSRF)")
	})
	t.Run("token in the query string only", func(t *testing.T) {
		form := newUser()
		form.Set(views.CSRFField, "")
		rec := a.Request(admin, http.MethodPost, "/users?"+views.CSRFField+"="+url.QueryEscape(admin.CSRF), form)
		require.Equal(t, http.StatusForbidden, rec.Code, "URLs leak into logs and Referer headers")
	})
	t.Run("token in the query string of a bodyless post", func(t *testing.T) {
		rec := a.Request(admin, http.MethodPost, "/signout?"+views.CSRFField+"="+url.QueryEscape(admin.CSRF), nil)
		require.Equal(t, http.StatusForbidden, rec.Code)
	})
	t.Run("sign-in form", func(t *testing.T) {
		rec := a.Request(handlerstest.Visitor{}, http.MethodPost, "/signin", url.Values{"username": {"root"}, "password": {handlerstest.TestPassword}})
		require.Equal(t, http.StatusForbidden, rec.Code, "no session, no token: refused before the password is checked")
	})
}

func TestAnonymousHTMXRequestIsRedirectedWithAHeader(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	rec := a.Request(a.Anonymous(t), http.MethodGet, "/users", nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "/signin?next=%2Fusers", rec.Header().Get("HX-Redirect"))
}

func TestSessionEndsWhenTheUserChanges(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	bob, bobUser := a.As(t, "bob", auth.Operator)
	require.Equal(t, http.StatusSeeOther, a.Request(bob, http.MethodGet, "/", nil).Code)
	require.Equal(t, "/drivers", a.Request(bob, http.MethodGet, "/", nil).Header().Get("Location"))

	rec := a.Request(admin, http.MethodPost, userURL(bobUser.ID, "disable"), url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code)

	rec = a.Request(bob, http.MethodGet, "/", nil)
	require.Equal(t, "/signin", rec.Header().Get("Location"), "bob's session ended when he was disabled")
}
