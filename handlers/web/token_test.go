package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// createToken creates a token on the API tokens page as v and returns the
// secret the answer shows.
func (a *app) createToken(t *testing.T, v visitor, form url.Values) string {
	t.Helper()
	rec := a.request(v, http.MethodPost, "/account/tokens", form)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	secret := text(parse(t, rec).Find(`[data-testid="new-token"]`))
	require.True(t, strings.HasPrefix(secret, auth.APITokenPrefix), secret)
	return secret
}

// requireTokenWorks reports whether secret authenticates as want.
func (a *app) requireTokenWorks(t *testing.T, secret string, want auth.User, why string) {
	t.Helper()
	got, err := a.deps.APITokens.Authenticate(context.Background(), secret)
	require.NoError(t, err, why)
	require.Equal(t, want.ID, got.ID, why)
}

func (a *app) requireTokenRefused(t *testing.T, secret, why string) {
	t.Helper()
	_, err := a.deps.APITokens.Authenticate(context.Background(), secret)
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), why)
}

// TestAPITokenSecretIsShownOnce: the answer to creating a token shows its
// secret, uncached; the page never shows it again.
func TestAPITokenSecretIsShownOnce(t *testing.T) {
	t.Parallel()
	a := setup(t)
	reader, readerUser := a.as(t, "reader", auth.ReadOnly)

	rec := a.request(reader, http.MethodGet, "/account/tokens", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := parse(t, rec)
	require.Equal(t, "You have no API tokens.", text(doc.Find(`[data-testid="no-tokens"]`)))
	require.Equal(t, "30d", doc.Find(`select[name="expires"] option[selected]`).AttrOr("value", ""), "30 days is the default")
	require.Empty(t, doc.Find(`[data-testid="token-created"]`).Nodes)
	require.Equal(t, "/account/tokens", doc.Find(`[data-testid="account-nav"] a[aria-current="page"]`).AttrOr("href", ""))

	rec = a.request(reader, http.MethodPost, "/account/tokens", url.Values{"name": {"nightly backup"}, "expires": {"90d"}})
	require.Equal(t, http.StatusOK, rec.Code, "the secret is in this answer, not behind a redirect")
	require.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
	doc = parse(t, rec)
	secret := text(doc.Find(`[data-testid="new-token"]`))
	require.True(t, strings.HasPrefix(secret, auth.APITokenPrefix), secret)
	require.Contains(t, text(doc.Find(`[data-testid="token-created"]`)), "Copy it now; it will not be shown again.")
	a.requireTokenWorks(t, secret, readerUser, "a read-only user's token is theirs")
	for _, c := range rec.Result().Cookies() {
		require.NotContains(t, c.Value, secret, "the secret goes into no cookie")
	}

	rec = a.request(reader, http.MethodGet, "/account/tokens", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotContains(t, rec.Body.String(), secret, "shown once")
	require.NotContains(t, rec.Body.String(), strings.TrimPrefix(secret, auth.APITokenPrefix))
	doc = parse(t, rec)
	require.Empty(t, doc.Find(`[data-testid="token-created"]`).Nodes)
	rows := doc.Find(`[data-testid="tokens-table"] tbody tr`)
	require.Len(t, rows.Nodes, 1)
	require.Equal(t, "nightly backup", text(rows.Find(`[data-testid="name"]`)))
	require.NotEqual(t, "never", text(rows.Find(`[data-testid="last-used"]`)), "the token was used above")
	expires, err := time.Parse("2006-01-02 15:04 UTC", text(rows.Find(`[data-testid="expires"]`)))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(90*24*time.Hour), expires, 2*time.Minute)
}

func TestAPITokenExpiryChoices(t *testing.T) {
	t.Parallel()
	a := setup(t)
	bob, _ := a.as(t, "bob", auth.Operator)
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)

	a.createToken(t, bob, url.Values{"name": {"forever"}, "expires": {"never"}})
	a.createToken(t, bob, url.Values{"name": {"dated"}, "expires": {views.ExpiresCustom}, "expires_at": {tomorrow}})
	doc := parse(t, a.request(bob, http.MethodGet, "/account/tokens", nil))
	rows := doc.Find(`[data-testid="tokens-table"] tbody tr`)
	require.Equal(t, []string{"dated", "forever"}, texts(rows.Find(`[data-testid="name"]`)), "the newest first")
	end := time.Now().UTC().AddDate(0, 0, 2).Format(time.DateOnly) + " 00:00 UTC"
	require.Equal(t, []string{end, "never"}, texts(rows.Find(`[data-testid="expires"]`)), "a date lasts to its end, UTC")

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
		rec := a.request(bob, http.MethodPost, "/account/tokens", tc.form)
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, tc.why)
		doc := parse(t, rec)
		require.NotEmpty(t, text(doc.Find(`[data-testid="error-`+tc.field+`"]`)), tc.why)
		require.Empty(t, doc.Find(`[data-testid="new-token"]`).Nodes, tc.why)
		require.Len(t, doc.Find(`[data-testid="tokens-table"] tbody tr`).Nodes, 2, "%s: nothing was created", tc.why)
	}
}

func TestReadOnlyUserRevokesTheirOwnToken(t *testing.T) {
	t.Parallel()
	a := setup(t)
	reader, _ := a.as(t, "reader", auth.ReadOnly)
	secret := a.createToken(t, reader, url.Values{"name": {"laptop"}})

	doc := parse(t, a.request(reader, http.MethodGet, "/account/tokens", nil))
	form := doc.Find(`[data-testid="revoke-token"]`).Closest("form")
	action := form.AttrOr("action", "")
	require.True(t, strings.HasPrefix(action, "/account/tokens/"), action)
	require.Contains(t, form.AttrOr("hx-confirm", ""), "Revoke the token “laptop”?", "the browser asks first")

	require.Equal(t, "never", text(doc.Find(`[data-testid="last-used"]`)), "a token not used yet")

	rec := a.request(reader, http.MethodPost, action, url.Values{})
	require.Equal(t, "/account/tokens", rec.Header().Get("Location"))
	require.Equal(t, []string{"The API token is revoked; scripts that use it are refused from now on."}, a.flashes(t, reader, rec))
	a.requireTokenRefused(t, secret, "a revoked token")
	require.Equal(t, http.StatusNotFound, a.request(reader, http.MethodPost, action, url.Values{}).Code, "revoked once")

	secret = a.createToken(t, reader, url.Values{"name": {"htmx"}})
	action = parse(t, a.request(reader, http.MethodGet, "/account/tokens", nil)).Find(`[data-testid="revoke-token"]`).Closest("form").AttrOr("action", "")
	rec = a.request(reader, http.MethodPost, action, url.Values{}, "HX-Request", "true")
	require.Equal(t, "/account/tokens", rec.Header().Get("HX-Redirect"), "the confirmed htmx request goes back to the page")
	a.requireTokenRefused(t, secret, "a token revoked with htmx")
}

// TestNobodyButAnAdminRevokesAnotherUsersToken is the attack of a crafted
// form: a user posts the revoke route with the id of another user's token.
func TestNobodyButAnAdminRevokesAnotherUsersToken(t *testing.T) {
	t.Parallel()
	a := setup(t)
	alice, aliceUser := a.as(t, "alice", auth.ReadOnly)
	mallory, _ := a.as(t, "mallory", auth.Operator)
	admin, _ := a.as(t, "root", auth.Admin)
	secret := a.createToken(t, alice, url.Values{"name": {"alice's script"}})
	tokens, err := a.deps.APITokens.List(context.Background(), aliceUser)
	require.NoError(t, err)
	revoke := views.APITokenRevokeURL(tokens[0].ID)

	rec := a.request(mallory, http.MethodPost, revoke, url.Values{"user": {"1"}})
	require.Equal(t, http.StatusNotFound, rec.Code, "another user's token is not found, so ids reveal nothing")
	a.requireTokenWorks(t, secret, aliceUser, "the refused revocation changed nothing")
	for _, path := range []string{"/account/tokens/abc/revoke", "/account/tokens/-1/revoke"} {
		require.Equal(t, http.StatusNotFound, a.request(mallory, http.MethodPost, path, url.Values{}).Code, path)
	}
	doc := parse(t, a.request(mallory, http.MethodGet, "/account/tokens", nil))
	require.NotContains(t, doc.Text(), "alice's script", "a user sees only their own tokens")
	require.Equal(t, http.StatusForbidden, a.request(mallory, http.MethodGet, views.UserAPITokensURL(aliceUser.ID), nil).Code)

	// The admin finds alice's tokens from the users page and revokes there.
	doc = parse(t, a.request(admin, http.MethodGet, "/users", nil))
	page := doc.Find(`[data-testid="user-alice"] [data-testid="user-tokens"]`).AttrOr("href", "")
	require.Equal(t, views.UserAPITokensURL(aliceUser.ID), page)
	rec = a.request(admin, http.MethodGet, page, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc = parse(t, rec)
	require.Equal(t, []string{"alice's script"}, texts(doc.Find(`[data-testid="tokens-table"] [data-testid="name"]`)))
	require.NotContains(t, rec.Body.String(), secret)
	form := doc.Find(`[data-testid="revoke-token"]`).Closest("form")
	require.Equal(t, revoke, form.AttrOr("action", ""))
	values := url.Values{}
	form.Find(`input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) { values.Set(s.AttrOr("name", ""), s.AttrOr("value", "")) })

	rec = a.request(admin, http.MethodPost, revoke, values)
	require.Equal(t, page, rec.Header().Get("Location"), "back to alice's tokens")
	a.requireTokenRefused(t, secret, "an admin revokes anyone's token")
	doc = parse(t, a.request(admin.follow(rec), http.MethodGet, page, nil))
	require.Equal(t, "alice has no API tokens.", text(doc.Find(`[data-testid="no-tokens"]`)))
	require.Equal(t, http.StatusNotFound, a.request(admin, http.MethodGet, views.UserAPITokensURL(999999), nil).Code)
}

func TestAPITokenPagesNeedTheCSRFToken(t *testing.T) {
	t.Parallel()
	a := setup(t)
	bob, bobUser := a.as(t, "bob", auth.Operator)
	secret := a.createToken(t, bob, url.Values{"name": {"kept"}})
	tokens, err := a.deps.APITokens.List(context.Background(), bobUser)
	require.NoError(t, err)

	rec := a.request(bob, http.MethodPost, "/account/tokens", url.Values{"name": {"forged"}, views.CSRFField: {""}})
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.NotContains(t, rec.Body.String(), auth.APITokenPrefix)
	rec = a.request(bob, http.MethodPost, views.APITokenRevokeURL(tokens[0].ID), url.Values{views.CSRFField: {a.anonymous(t).csrf}})
	require.Equal(t, http.StatusForbidden, rec.Code)

	a.requireTokenWorks(t, secret, bobUser, "the forged revocation changed nothing")
	tokens, err = a.deps.APITokens.List(context.Background(), bobUser)
	require.NoError(t, err)
	require.Len(t, tokens, 1, "the forged creation made nothing")
}
