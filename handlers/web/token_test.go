package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// TestAPITokenSecretIsShownOnce: the answer to creating a token shows its
// secret, uncached; the page never shows it again.
func TestAPITokenSecretIsShownOnce(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, readerUser := a.As(t, "reader", auth.ReadOnly)

	rec := a.Request(reader, http.MethodGet, "/account/tokens", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "You have no API tokens.", handlerstest.Text(doc.Find(`[data-testid="no-tokens"]`)))
	require.Equal(t, "30d", doc.Find(`select[name="expires"] option[selected]`).AttrOr("value", ""), "30 days is the default")
	require.Empty(t, doc.Find(`[data-testid="token-created"]`).Nodes)
	require.Equal(t, "/account/tokens", doc.Find(`[data-testid="account-nav"] a[aria-current="page"]`).AttrOr("href", ""))

	rec = a.Request(reader, http.MethodPost, "/account/tokens", url.Values{"name": {"nightly backup"}, "expires": {"90d"}})
	require.Equal(t, http.StatusOK, rec.Code, "the secret is in this answer, not behind a redirect")
	require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
	doc = handlerstest.Parse(t, rec)
	secret := handlerstest.Text(doc.Find(`[data-testid="new-token"]`))
	require.True(t, strings.HasPrefix(secret, auth.APITokenPrefix), secret)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="token-created"]`)), "Copy it now; it will not be shown again.")
	a.RequireTokenWorks(t, secret, readerUser, "a read-only user's token is theirs")
	for _, c := range rec.Result().Cookies() {
		require.NotContains(t, c.Value, secret, "the secret goes into no cookie")
	}

	rec = a.Request(reader, http.MethodGet, "/account/tokens", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotContains(t, rec.Body.String(), secret, "shown once")
	require.NotContains(t, rec.Body.String(), strings.TrimPrefix(secret, auth.APITokenPrefix))
	doc = handlerstest.Parse(t, rec)
	require.Empty(t, doc.Find(`[data-testid="token-created"]`).Nodes)
	rows := doc.Find(`[data-testid="tokens-table"] tbody tr`)
	require.Len(t, rows.Nodes, 1)
	require.Equal(t, "nightly backup", handlerstest.Text(rows.Find(`[data-testid="name"]`)))
	require.NotEqual(t, "never", handlerstest.Text(rows.Find(`[data-testid="last-used"]`)), "the token was used above")
	expires, err := time.Parse("2006-01-02 15:04 UTC", handlerstest.Text(rows.Find(`[data-testid="expires"]`)))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(90*24*time.Hour), expires, 2*time.Minute)
}

func TestAPITokenExpiryChoices(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	bob, _ := a.As(t, "bob", auth.Operator)
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)

	a.CreateToken(t, bob, url.Values{"name": {"forever"}, "expires": {"never"}})
	a.CreateToken(t, bob, url.Values{"name": {"dated"}, "expires": {views.ExpiresCustom}, "expires_at": {tomorrow}})
	doc := handlerstest.Parse(t, a.Request(bob, http.MethodGet, "/account/tokens", nil))
	rows := doc.Find(`[data-testid="tokens-table"] tbody tr`)
	require.Equal(t, []string{"dated", "forever"}, handlerstest.Texts(rows.Find(`[data-testid="name"]`)), "the newest first")
	end := time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly) + " 00:00 UTC"
	require.Equal(t, []string{end, "never"}, handlerstest.Texts(rows.Find(`[data-testid="expires"]`)), "a date lasts to its end, UTC")

	for _, tc := range []struct {
		why   string
		form  url.Values
		field string
	}{
		{"no name", url.Values{"name": {" "}, "expires": {"30d"}}, "name"},
		{"a forged expiry", url.Values{"name": {"x"}, "expires": {"30 years"}}, "expires"},
		{"a date choice without a date", url.Values{"name": {"x"}, "expires": {views.ExpiresCustom}}, "expires_at"},
		{"a date in the past", url.Values{"name": {"x"}, "expires": {views.ExpiresCustom}, "expires_at": {"2020-01-01"}}, "expires_at"},
	} {
		rec := a.Request(bob, http.MethodPost, "/account/tokens", tc.form)
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, tc.why)
		doc := handlerstest.Parse(t, rec)
		require.NotEmpty(t, handlerstest.Text(doc.Find(`[data-testid="error-`+tc.field+`"]`)), tc.why)
		require.Empty(t, doc.Find(`[data-testid="new-token"]`).Nodes, tc.why)
		require.Len(t, doc.Find(`[data-testid="tokens-table"] tbody tr`).Nodes, 2, "%s: nothing was created", tc.why)
	}
}

func TestReadOnlyUserRevokesTheirOwnToken(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, _ := a.As(t, "reader", auth.ReadOnly)
	secret := a.CreateToken(t, reader, url.Values{"name": {"laptop"}})

	doc := handlerstest.Parse(t, a.Request(reader, http.MethodGet, "/account/tokens", nil))
	form := doc.Find(`[data-testid="revoke-token"]`).Closest("form")
	action := form.AttrOr("action", "")
	require.True(t, strings.HasPrefix(action, "/account/tokens/"), action)
	require.Contains(t, form.AttrOr("hx-confirm", ""), "Revoke the token “laptop”?", "the browser asks first")

	require.Equal(t, "never", handlerstest.Text(doc.Find(`[data-testid="last-used"]`)), "a token not used yet")

	rec := a.Request(reader, http.MethodPost, action, url.Values{})
	require.Equal(t, "/account/tokens", rec.Header().Get("Location"))
	require.Equal(t, []string{"The API token is revoked; scripts that use it are refused from now on."}, a.Flashes(t, reader, rec))
	a.RequireTokenRefused(t, secret, "a revoked token")
	require.Equal(t, http.StatusNotFound, a.Request(reader, http.MethodPost, action, url.Values{}).Code, "revoked once")

	secret = a.CreateToken(t, reader, url.Values{"name": {"htmx"}})
	action = handlerstest.Parse(t, a.Request(reader, http.MethodGet, "/account/tokens", nil)).Find(`[data-testid="revoke-token"]`).Closest("form").AttrOr("action", "")
	rec = a.Request(reader, http.MethodPost, action, url.Values{}, "HX-Request", "true")
	require.Equal(t, "/account/tokens", rec.Header().Get("HX-Redirect"), "the confirmed htmx request goes back to the page")
	a.RequireTokenRefused(t, secret, "a token revoked with htmx")
}

// TestNobodyButAnAdminRevokesAnotherUsersToken is the attack of a crafted
// form: a user posts the revoke route with the id of another user's token.
func TestNobodyButAnAdminRevokesAnotherUsersToken(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	alice, aliceUser := a.As(t, "alice", auth.ReadOnly)
	mallory, _ := a.As(t, "mallory", auth.Operator)
	admin, _ := a.As(t, "root", auth.Admin)
	secret := a.CreateToken(t, alice, url.Values{"name": {"alice's script"}})
	tokens, err := a.Deps.APITokens.List(context.Background(), aliceUser)
	require.NoError(t, err)
	revoke := views.APITokenRevokeURL(tokens[0].ID)

	rec := a.Request(mallory, http.MethodPost, revoke, url.Values{"user": {"1"}})
	require.Equal(t, http.StatusNotFound, rec.Code, "another user's token is not found, so ids reveal nothing")
	a.RequireTokenWorks(t, secret, aliceUser, "the refused revocation changed nothing")
	for _, path := range []string{"/account/tokens/abc/revoke", "/account/tokens/-1/revoke"} {
		require.Equal(t, http.StatusNotFound, a.Request(mallory, http.MethodPost, path, url.Values{}).Code, path)
	}
	doc := handlerstest.Parse(t, a.Request(mallory, http.MethodGet, "/account/tokens", nil))
	require.NotContains(t, doc.Text(), "alice's script", "a user sees only their own tokens")
	require.Equal(t, http.StatusForbidden, a.Request(mallory, http.MethodGet, views.UserAPITokensURL(aliceUser.ID), nil).Code)

	// The admin finds alice's tokens from the users page and revokes there.
	doc = handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/users", nil))
	page := doc.Find(`[data-testid="user-alice"] [data-testid="user-tokens"]`).AttrOr("href", "")
	require.Equal(t, views.UserAPITokensURL(aliceUser.ID), page)
	rec = a.Request(admin, http.MethodGet, page, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, []string{"alice's script"}, handlerstest.Texts(doc.Find(`[data-testid="tokens-table"] [data-testid="name"]`)))
	require.NotContains(t, rec.Body.String(), secret)
	form := doc.Find(`[data-testid="revoke-token"]`).Closest("form")
	require.Equal(t, revoke, form.AttrOr("action", ""))
	values := url.Values{}
	form.Find(`input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) { values.Set(s.AttrOr("name", ""), s.AttrOr("value", "")) })

	rec = a.Request(admin, http.MethodPost, revoke, values)
	require.Equal(t, page, rec.Header().Get("Location"), "back to alice's tokens")
	a.RequireTokenRefused(t, secret, "an admin revokes anyone's token")
	doc = handlerstest.Parse(t, a.Request(admin.Follow(rec), http.MethodGet, page, nil))
	require.Equal(t, "alice has no API tokens.", handlerstest.Text(doc.Find(`[data-testid="no-tokens"]`)))
	require.Equal(t, http.StatusNotFound, a.Request(admin, http.MethodGet, views.UserAPITokensURL(999999), nil).Code)
}

func TestAPITokenPagesNeedTheCSRFToken(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	bob, bobUser := a.As(t, "bob", auth.Operator)
	secret := a.CreateToken(t, bob, url.Values{"name": {"kept"}})
	tokens, err := a.Deps.APITokens.List(context.Background(), bobUser)
	require.NoError(t, err)

	rec := a.Request(bob, http.MethodPost, "/account/tokens", url.Values{"name": {"forged"}, views.CSRFField: {""}})
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.NotContains(t, rec.Body.String(), auth.APITokenPrefix)
	rec = a.Request(bob, http.MethodPost, views.APITokenRevokeURL(tokens[0].ID), url.Values{views.CSRFField: {a.Anonymous(t).CSRF}})
	require.Equal(t, http.StatusForbidden, rec.Code)

	a.RequireTokenWorks(t, secret, bobUser, "the forged revocation changed nothing")
	tokens, err = a.Deps.APITokens.List(context.Background(), bobUser)
	require.NoError(t, err)
	require.Len(t, tokens, 1, "the forged creation made nothing")
}
