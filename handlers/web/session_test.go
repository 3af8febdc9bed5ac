package handlers

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

// signInByForm signs in through the sign-in page, as a browser does, and
// returns the signed-in visitor with the CSRF token of their next page.
func (a *app) signInByForm(t *testing.T, username string) visitor {
	t.Helper()
	v := a.anonymous(t)
	rec := a.request(v, http.MethodPost, "/signin", url.Values{"username": {username}, "password": {testPassword}}, "User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	v = v.follow(rec)
	page := a.request(v, http.MethodGet, "/account/sessions", nil)
	require.Equal(t, http.StatusOK, page.Code)
	v.csrf = parse(t, page).Find(`meta[name="csrf-token"]`).AttrOr("content", "")
	return v
}

// TestCopiedCookieIsSignedOutWithItsSession is the attack of issue 7: an
// admin's cookie copied before sign-out created a new admin after it.
func TestCopiedCookieIsSignedOutWithItsSession(t *testing.T) {
	t.Parallel()
	a := setup(t)
	_, _ = a.as(t, "root", auth.Admin)
	admin := a.signInByForm(t, "root")
	copied := admin

	rec := a.request(admin, http.MethodPost, "/signout", url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code)

	rec = a.request(copied, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin?next=%2Fusers", rec.Header().Get("Location"))
	rec = a.request(copied, http.MethodPost, "/users", url.Values{"username": {"mallory"}, "role": {"admin"}, "password": {testPassword}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin", rec.Header().Get("Location"), "the copied cookie is anonymous")
	users, err := a.users.List(t.Context())
	require.NoError(t, err)
	require.Len(t, users, 1)
}

func TestSessionsPage(t *testing.T) {
	t.Parallel()
	a := setup(t)
	_, _ = a.as(t, "reader", auth.ReadOnly)
	laptop := a.signInByForm(t, "reader")
	phone := a.signInByForm(t, "reader")

	rec := a.request(laptop, http.MethodGet, "/account/sessions", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := parse(t, rec)
	rows := doc.Find(`[data-testid="sessions-table"] tbody tr`)
	require.Len(t, rows.Nodes, 3, "the session of a.as and the two signed in by form")
	current := doc.Find(`[data-testid="current"]`).Closest("tr")
	require.Len(t, current.Nodes, 1, "one session is marked as this one")
	require.Equal(t, "Firefox on Linux", text(current.Find(`[data-testid="browser"]`)))
	require.Equal(t, "192.0.2.1", text(current.Find(`[data-testid="address"]`)))
	require.NotEmpty(t, text(current.Find(`[data-testid="last-seen"]`)))
	require.Empty(t, current.Find(`[data-testid="end-session"]`).Nodes, "the current session is ended with Sign out")

	// End the phone's session from the laptop: the phone's row is the newest other one.
	var phoneEnd string
	doc.Find(`[data-testid="end-session"]`).Each(func(_ int, s *goquery.Selection) {
		if phoneEnd == "" {
			phoneEnd, _ = s.Closest("form").Attr("action")
		}
	})
	require.True(t, strings.HasPrefix(phoneEnd, "/account/sessions/"), phoneEnd)
	require.Equal(t, http.StatusOK, a.request(phone, http.MethodGet, "/drivers", nil).Code)
	rec = a.request(laptop, http.MethodPost, phoneEnd, url.Values{})
	require.Equal(t, []string{"The session has ended; that browser is signed out."}, a.flashes(t, laptop, rec), "a read-only user may end their own sessions")

	rec = a.request(phone, http.MethodGet, "/drivers", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin?next=%2Fdrivers", rec.Header().Get("Location"), "the phone is signed out")
	require.Equal(t, http.StatusOK, a.request(laptop, http.MethodGet, "/drivers", nil).Code, "the laptop is not")
}

func TestNobodyEndsAnotherUsersSession(t *testing.T) {
	t.Parallel()
	a := setup(t)
	_, _ = a.as(t, "alice", auth.ReadOnly)
	_, _ = a.as(t, "root", auth.Admin)
	alice := a.signInByForm(t, "alice")
	admin := a.signInByForm(t, "root")

	doc := parse(t, a.request(alice, http.MethodGet, "/account/sessions", nil))
	aliceEnd, ok := doc.Find(`[data-testid="end-session"]`).Closest("form").Attr("action")
	require.True(t, ok)

	rec := a.request(admin, http.MethodPost, aliceEnd, url.Values{})
	require.Equal(t, http.StatusNotFound, rec.Code, "not even an admin ends someone else's session")
	for _, path := range []string{"/account/sessions/abc/end", "/account/sessions/-1/end"} {
		require.Equal(t, http.StatusNotFound, a.request(alice, http.MethodPost, path, url.Values{}).Code, path)
	}
	doc = parse(t, a.request(alice, http.MethodGet, "/account/sessions", nil))
	require.Len(t, doc.Find(`[data-testid="sessions-table"] tbody tr`).Nodes, 2, "alice's sessions are intact")
}

func TestResettingAPasswordSignsTheUserOut(t *testing.T) {
	t.Parallel()
	a := setup(t)
	admin, _ := a.as(t, "root", auth.Admin)
	bob, bobUser := a.as(t, "bob", auth.Operator)
	require.Equal(t, http.StatusOK, a.request(bob, http.MethodGet, "/drivers", nil).Code)

	rec := a.request(admin, http.MethodPost, userURL(bobUser.ID, "password"), url.Values{"password": {"bob's new password"}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin?next=%2Fdrivers", a.request(bob, http.MethodGet, "/drivers", nil).Header().Get("Location"))
}
