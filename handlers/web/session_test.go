package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

// TestCopiedCookieIsSignedOutWithItsSession is the attack of issue 7: an
// admin's cookie copied before sign-out created a new admin after it.
func TestCopiedCookieIsSignedOutWithItsSession(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, _ = a.As(t, "root", auth.Admin)
	admin := a.SignInByForm(t, "root")
	copied := admin

	rec := a.Request(admin, http.MethodPost, "/signout", url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code)

	rec = a.Request(copied, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin?next=%2Fusers", rec.Header().Get("Location"))
	rec = a.Request(copied, http.MethodPost, "/users", url.Values{"username": {"mallory"}, "role": {"admin"}, "password": {handlerstest.TestPassword}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin", rec.Header().Get("Location"), "the copied cookie is anonymous")
	users, err := a.Users.List(t.Context())
	require.NoError(t, err)
	require.Len(t, users, 1)
}

func TestSessionsPage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, _ = a.As(t, "reader", auth.ReadOnly)
	laptop := a.SignInByForm(t, "reader")
	phone := a.SignInByForm(t, "reader")

	rec := a.Request(laptop, http.MethodGet, "/account/sessions", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	rows := doc.Find(`[data-testid="sessions-table"] tbody tr`)
	require.Len(t, rows.Nodes, 3, "the session of a.As and the two signed in by form")
	current := doc.Find(`[data-testid="current"]`).Closest("tr")
	require.Len(t, current.Nodes, 1, "one session is marked as this one")
	require.Equal(t, "Firefox on Linux", handlerstest.Text(current.Find(`[data-testid="browser"]`)))
	require.Equal(t, "192.0.2.1", handlerstest.Text(current.Find(`[data-testid="address"]`)))
	require.NotEmpty(t, handlerstest.Text(current.Find(`[data-testid="last-seen"]`)))
	require.Empty(t, current.Find(`[data-testid="end-session"]`).Nodes, "the current session is ended with Sign out")

	// End the phone's session from the laptop: the phone's row is the newest other one.
	var phoneEnd string
	doc.Find(`[data-testid="end-session"]`).Each(func(_ int, s *goquery.Selection) {
		if phoneEnd == "" {
			phoneEnd, _ = s.Closest("form").Attr("action")
		}
	})
	require.True(t, strings.HasPrefix(phoneEnd, "/account/sessions/"), phoneEnd)
	require.Equal(t, http.StatusOK, a.Request(phone, http.MethodGet, "/drivers", nil).Code)
	rec = a.Request(laptop, http.MethodPost, phoneEnd, url.Values{})
	require.Equal(t, []string{"The session has ended; that browser is signed out."}, a.Flashes(t, laptop, rec), "a read-only user may end their own sessions")

	rec = a.Request(phone, http.MethodGet, "/drivers", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin?next=%2Fdrivers", rec.Header().Get("Location"), "the phone is signed out")
	require.Equal(t, http.StatusOK, a.Request(laptop, http.MethodGet, "/drivers", nil).Code, "the laptop is not")
}

func TestNobodyEndsAnotherUsersSession(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, _ = a.As(t, "alice", auth.ReadOnly)
	_, _ = a.As(t, "root", auth.Admin)
	alice := a.SignInByForm(t, "alice")
	admin := a.SignInByForm(t, "root")

	doc := handlerstest.Parse(t, a.Request(alice, http.MethodGet, "/account/sessions", nil))
	aliceEnd, ok := doc.Find(`[data-testid="end-session"]`).Closest("form").Attr("action")
	require.True(t, ok)

	rec := a.Request(admin, http.MethodPost, aliceEnd, url.Values{})
	require.Equal(t, http.StatusNotFound, rec.Code, "not even an admin ends someone else's session")
	for _, path := range []string{"/account/sessions/abc/end", "/account/sessions/-1/end"} {
		require.Equal(t, http.StatusNotFound, a.Request(alice, http.MethodPost, path, url.Values{}).Code, path)
	}
	doc = handlerstest.Parse(t, a.Request(alice, http.MethodGet, "/account/sessions", nil))
	require.Len(t, doc.Find(`[data-testid="sessions-table"] tbody tr`).Nodes, 2, "alice's sessions are intact")
}

func TestResettingAPasswordSignsTheUserOut(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	bob, bobUser := a.As(t, "bob", auth.Operator)
	require.Equal(t, http.StatusOK, a.Request(bob, http.MethodGet, "/drivers", nil).Code)

	rec := a.Request(admin, http.MethodPost, userURL(bobUser.ID, "password"), url.Values{"password": {"bob's new password"}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, "/signin?next=%2Fdrivers", a.Request(bob, http.MethodGet, "/drivers", nil).Header().Get("Location"))
}
