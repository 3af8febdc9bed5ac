package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/sso"
	"github.com/styrmin/styrmin/sso/ssotest"
)

// ssoEnv is a server whose people sign in through a test issuer.
type ssoEnv struct {
	*apptest.Env
	iss *ssotest.Issuer
}

// ssoRoles are the test issuer's groups that give roles.
var ssoRoles = sso.RoleGroups{"admins": auth.Admin, "operators": auth.Operator, "readers": auth.ReadOnly}

// newSSOEnv starts a test issuer and a server signing people in through it.
func newSSOEnv(t *testing.T, local auth.LocalSignin) *ssoEnv {
	t.Helper()
	return startSSOEnv(t, ssotest.New(t), local)
}

// startSSOEnv starts a server signing people in through iss.
func startSSOEnv(t *testing.T, iss *ssotest.Issuer, local auth.LocalSignin) *ssoEnv {
	t.Helper()
	env := apptest.New(t, apptest.Options{NoBundled: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), LocalSignin: local,
		SSO: &sso.Config{Issuer: iss.URL, ClientID: ssotest.ClientID, ClientSecret: ssotest.ClientSecret, Name: "Test ID", Roles: ssoRoles}})
	return &ssoEnv{Env: env, iss: iss}
}

// signInLocally signs name in with password in a new browser and returns the answer, read.
func (e *ssoEnv) signInLocally(t *testing.T, name, password string) (*http.Response, string) {
	t.Helper()
	b := browser(t)
	_, page := e.get(t, b, "/signin")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	require.NoError(t, err)
	res, err := b.PostForm(e.URL+"/signin", url.Values{"username": {name}, "password": {password}, "_csrf": {handlerstest.CSRFToken(t, doc)}})
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(body)
}

// browser is a new browser: its own cookies, and redirects left to the test.
func browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// get requests target (a path on the server, or a URL) and returns the answer, read.
func (e *ssoEnv) get(t *testing.T, b *http.Client, target string) (*http.Response, string) {
	t.Helper()
	if strings.HasPrefix(target, "/") {
		target = e.URL + target
	}
	res, err := b.Get(target)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, string(body)
}

// callbackURL starts a sign-in in b and returns the URL the issuer sends b
// back to, not yet visited.
func (e *ssoEnv) callbackURL(t *testing.T, b *http.Client) string {
	t.Helper()
	res, _ := e.get(t, b, sso.StartPath)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	authorize := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(authorize, e.iss.URL+"/auth?"), "the browser goes to the issuer: %s", authorize)
	q, err := url.Parse(authorize)
	require.NoError(t, err)
	require.Equal(t, "S256", q.Query().Get("code_challenge_method"), "PKCE")
	require.NotEmpty(t, q.Query().Get("nonce"))
	res, _ = e.get(t, b, authorize)
	require.Equal(t, http.StatusFound, res.StatusCode)
	return res.Header.Get("Location")
}

// signIn signs b in through the issuer and returns the callback's answer.
func (e *ssoEnv) signIn(t *testing.T, b *http.Client) (*http.Response, string) {
	t.Helper()
	return e.get(t, b, e.callbackURL(t, b))
}

// requireSignedOut checks that nobody is signed in in b.
func (e *ssoEnv) requireSignedOut(t *testing.T, b *http.Client, why string) {
	t.Helper()
	res, _ := e.get(t, b, "/")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, why)
	require.Equal(t, "/signin", res.Header.Get("Location"), why)
}

// errorMessage is the message of an error page.
func errorMessage(t *testing.T, page string) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	require.NoError(t, err)
	return handlerstest.Text(doc.Find(`[data-testid="error-message"]`))
}

// lastSignin is the newest audit entry, a sign-in.
func (e *ssoEnv) lastSignin(t *testing.T) audit.Entry {
	t.Helper()
	page, err := e.Audit.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{Limit: 1})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	require.Equal(t, "signin", page.Entries[0].Action)
	return page.Entries[0]
}

func TestSingleSignOnCreatesTheUserAndFollowsTheirGroups(t *testing.T) {
	t.Parallel()
	e := newSSOEnv(t, auth.LocalSigninAll)
	ctx := context.Background()

	b := browser(t)
	_, page := e.get(t, b, "/signin?next=%2Fdeployments")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	require.NoError(t, err)
	require.Equal(t, "Sign in with Test ID", handlerstest.Text(doc.Find(`[data-testid="signin-sso"]`)))
	href, _ := doc.Find(`[data-testid="signin-sso"]`).Attr("href")
	require.Equal(t, sso.StartPath+"?next=%2Fdeployments", href)

	res, _ := e.signIn(t, b)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/", res.Header.Get("Location"))
	u, err := e.Users.GetByUsername(ctx, "ada")
	require.NoError(t, err, "the first sign-in creates the user")
	require.Equal(t, auth.Operator, u.Role)
	require.Equal(t, "oidc", u.Source())
	res, _ = e.get(t, b, "/deployments")
	require.Equal(t, http.StatusOK, res.StatusCode, "signed in")
	entry := e.lastSignin(t)
	require.Equal(t, audit.Allowed, entry.Outcome)
	require.Equal(t, audit.Target{Kind: audit.TargetUser, Name: "ada"}, entry.Target)
	require.Equal(t, map[string]string{"via": "oidc", "issuer": e.iss.URL}, entry.Detail)

	// The role follows the groups at every sign-in; the user stays the same.
	e.iss.SignInAs(ssotest.User{Subject: "sub-ada", Username: "ada", Groups: []string{"readers", "admins"}})
	adminBrowser := browser(t)
	res, _ = e.signIn(t, adminBrowser)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	again, err := e.Users.GetByUsername(ctx, "ada")
	require.NoError(t, err)
	require.Equal(t, u.ID, again.ID)
	require.Equal(t, auth.Admin, again.Role, "the highest role of the groups")

	// A local user's name is never taken over: another subject named like
	// an existing user gets a name of its own.
	_, err = e.Users.Create(ctx, auth.NewUser{Username: "bob", Password: handlerstest.TestPassword, Role: auth.Admin})
	require.NoError(t, err)
	e.iss.SignInAs(ssotest.User{Subject: "sub-bob", Username: "Bob", Groups: []string{"readers"}})
	res, _ = e.signIn(t, browser(t))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	bob2, err := e.Users.GetByUsername(ctx, "bob-2")
	require.NoError(t, err)
	require.Equal(t, auth.ReadOnly, bob2.Role)

	// The users page says who signs in with single sign-on, and offers them no password reset.
	_, page = e.get(t, adminBrowser, "/users")
	doc, err = goquery.NewDocumentFromReader(strings.NewReader(page))
	require.NoError(t, err)
	for name, sso := range map[string]bool{"ada": true, "bob-2": true, "bob": false} {
		row := doc.Find(`[data-testid="user-` + name + `"]`)
		require.Equal(t, 1, row.Length(), name)
		require.Equal(t, sso, row.Find(`[data-testid="user-sso"]`).Length() == 1, name)
		require.Equal(t, sso, row.Find(`[data-testid="no-password"]`).Length() == 1, name)
		require.Equal(t, !sso, row.Find(`input[name="password"]`).Length() == 1, name)
	}
}

func TestSingleSignOnWithoutAMappedGroupIsRefused(t *testing.T) {
	t.Parallel()
	e := newSSOEnv(t, auth.LocalSigninAll)
	e.iss.SignInAs(ssotest.User{Subject: "sub-eve", Username: "eve", Groups: []string{"marketing"}})
	b := browser(t)
	res, page := e.signIn(t, b)
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	require.Contains(t, errorMessage(t, page), "none of your groups has access to Styrmin")
	e.requireSignedOut(t, b, "no group, no access")
	_, err := e.Users.GetByUsername(context.Background(), "eve")
	require.Error(t, err, "no user is created")
	entry := e.lastSignin(t)
	require.Equal(t, audit.Refused, entry.Outcome)
	require.Equal(t, "eve", entry.Target.Name)

	// A user whose groups no longer give a role keeps the role they had but cannot sign in.
	e.iss.SignInAs(ssotest.User{Subject: "sub-eve", Username: "eve", Groups: []string{"operators"}})
	res, _ = e.signIn(t, browser(t))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	e.iss.SignInAs(ssotest.User{Subject: "sub-eve", Username: "eve"})
	b = browser(t)
	res, _ = e.signIn(t, b)
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	e.requireSignedOut(t, b, "groups taken away, no access")
}

// TestSingleSignOnAttacks: each bad answer is refused with a plain error and
// leaves nobody signed in and no user created.
func TestSingleSignOnAttacks(t *testing.T) {
	t.Parallel()
	e := newSSOEnv(t, auth.LocalSigninAll)
	for _, tc := range []struct {
		name   string
		attack func(t *testing.T)
		reason string
	}{
		{"forged ID token, signed by another key", func(t *testing.T) { e.iss.Forge(t) }, "the ID token is not valid"},
		{"expired ID token", func(*testing.T) {
			e.iss.Tamper(func(c ssotest.Claims) {
				c["iat"], c["exp"] = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
			})
		}, "expired"},
		{"wrong audience", func(*testing.T) { e.iss.Tamper(func(c ssotest.Claims) { c["aud"] = "another-client" }) }, "audience"},
		{"nonce mismatch", func(*testing.T) { e.iss.Tamper(func(c ssotest.Claims) { c["nonce"] = "another-nonce" }) }, "nonce"},
		{"issuer mismatch", func(*testing.T) { e.iss.Tamper(func(c ssotest.Claims) { c["iss"] = "https://evil.example" }) }, "issued by a different provider"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.iss.SignInAs(ssotest.User{Subject: "sub-" + tc.name, Username: "mallory", Groups: []string{"admins"}})
			tc.attack(t)
			defer e.iss.Honest()
			b := browser(t)
			res, page := e.signIn(t, b)
			require.Equal(t, http.StatusUnauthorized, res.StatusCode)
			msg := errorMessage(t, page)
			require.Contains(t, msg, "Single sign-on failed")
			require.Contains(t, msg, tc.reason)
			e.requireSignedOut(t, b, tc.name)
			_, err := e.Users.GetByUsername(context.Background(), "mallory")
			require.Error(t, err, "no user is created")
			require.Equal(t, audit.Refused, e.lastSignin(t).Outcome)
		})
	}
}

// Anyone may start a single sign-on, and each start keeps a row until its
// answer or its expiry: starting them without end, each in a new browser,
// fills no table. One address holds sso.MaxLoginsPerAddress of them; all
// addresses together sso.MaxLogins; expired ones count for nothing.
func TestStartingSingleSignOnsWithoutEndFillsNoTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := func(e *ssoEnv) (*http.Response, string) {
		return e.get(t, browser(t), sso.StartPath)
	}
	underWay := func(e *ssoEnv) (n int) {
		require.NoError(t, e.Pool.QueryRow(ctx, "SELECT count(*) FROM oidc_logins").Scan(&n))
		return n
	}
	requireRefused := func(res *http.Response, page string) {
		t.Helper()
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
		require.Contains(t, errorMessage(t, page), "Too many single sign-ons are under way")
	}

	t.Run("from one address", func(t *testing.T) {
		e := newSSOEnv(t, auth.LocalSigninAll)
		for range sso.MaxLoginsPerAddress {
			res, _ := start(e)
			require.Equal(t, http.StatusSeeOther, res.StatusCode)
		}
		requireRefused(start(e))
		require.Equal(t, sso.MaxLoginsPerAddress, underWay(e))
		_, err := e.Pool.Exec(ctx, "UPDATE oidc_logins SET expires_at = now() - interval '1 second'")
		require.NoError(t, err)
		res, _ := start(e)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, "expired sign-ins count for nothing")
	})
	t.Run("from every address", func(t *testing.T) {
		e := newSSOEnv(t, auth.LocalSigninAll)
		_, err := e.Pool.Exec(ctx, `INSERT INTO oidc_logins (state_hash, browser_hash, address, nonce, code_verifier, next, expires_at)
			SELECT decode(md5(i::text), 'hex'), '\x00', '10.0.' || (i / 250) || '.' || (i % 250), 'n', 'v', '/', now() + interval '5 minutes'
			FROM generate_series(1, $1) AS i`, sso.MaxLogins-1)
		require.NoError(t, err)
		res, _ := start(e)
		require.Equal(t, http.StatusSeeOther, res.StatusCode)
		requireRefused(start(e))
		require.Equal(t, sso.MaxLogins, underWay(e))
	})
}

func TestSingleSignOnStateIsGoodOnceAndInOneBrowser(t *testing.T) {
	t.Parallel()
	e := newSSOEnv(t, auth.LocalSigninAll)

	// A replayed state is refused, in the browser that used it and in any other.
	b := browser(t)
	callback := e.callbackURL(t, b)
	res, _ := e.get(t, b, callback)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	other := browser(t)
	res, page := e.get(t, other, callback)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Contains(t, errorMessage(t, page), "used already")
	e.requireSignedOut(t, other, "a replayed state signs nobody in")
	require.Equal(t, audit.Refused, e.lastSignin(t).Outcome)

	// A sign-in started in one browser cannot be finished in another (an
	// attacker's own sign-in planted in a victim's browser), and is spent.
	attacker, victim := browser(t), browser(t)
	planted := e.callbackURL(t, attacker)
	res, page = e.get(t, victim, planted)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Contains(t, errorMessage(t, page), "another browser")
	e.requireSignedOut(t, victim, "a planted state signs nobody in")
	res, _ = e.get(t, attacker, planted)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "the refused state is spent")

	// No state at all.
	res, _ = e.get(t, browser(t), sso.CallbackPath+"?code=x")
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
}

func TestSingleSignOnSignOutEndsTheProvidersSession(t *testing.T) {
	t.Parallel()
	e := newSSOEnv(t, auth.LocalSigninAll)
	b := browser(t)
	res, _ := e.signIn(t, b)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, page := e.get(t, b, "/deployments")
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	require.NoError(t, err)
	res, err = b.PostForm(e.URL+"/signout", url.Values{"_csrf": {handlerstest.CSRFToken(t, doc)}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	end, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, e.iss.URL+"/logout", end.Scheme+"://"+end.Host+end.Path)
	require.NotEmpty(t, end.Query().Get("id_token_hint"))
	require.Equal(t, e.URL+"/signin", end.Query().Get("post_logout_redirect_uri"))
	require.Equal(t, ssotest.ClientID, end.Query().Get("client_id"))
	e.requireSignedOut(t, b, "Styrmin's session ended")
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self' "+e.iss.URL, "the sign-out form may be redirected to the provider")
}

func TestLocalSigninForAdminsOnly(t *testing.T) {
	t.Parallel()
	e := newSSOEnv(t, auth.LocalSigninAdminsOnly)
	ctx := context.Background()
	for _, u := range []auth.NewUser{{Username: "root", Role: auth.Admin}, {Username: "olle", Role: auth.Operator}} {
		u.Password = handlerstest.TestPassword
		_, err := e.Users.Create(ctx, u)
		require.NoError(t, err)
	}
	res, _ := e.signInLocally(t, "root", handlerstest.TestPassword)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "an admin signs in with a password (break-glass)")
	res, page := e.signInLocally(t, "olle", handlerstest.TestPassword)
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	require.Contains(t, page, "for admins only")
	require.Contains(t, page, "Sign in with Test ID")

	// A user of the provider has no password to sign in with.
	_, err := e.Users.SignInIdentity(ctx, auth.Identity{Issuer: e.iss.URL, Subject: "s", Username: "ida", Role: auth.Admin})
	require.NoError(t, err)
	res, _ = e.signInLocally(t, "ida", "")
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	u, err := e.Users.GetByUsername(ctx, "ida")
	require.NoError(t, err)
	_, err = e.Users.SetPassword(ctx, u.ID, handlerstest.TestPassword, auth.KeepAPITokens)
	require.ErrorContains(t, err, "single sign-on")
	_, err = e.Users.ChangeOwnPassword(ctx, u, "", handlerstest.TestPassword, "127.0.0.1")
	require.ErrorContains(t, err, "single sign-on")
}

// The identity provider is down when Styrmin starts: Styrmin starts all the
// same and a local admin signs in (break-glass); a single sign-on is refused
// saying the provider does not answer, and works once it does, without a
// restart.
func TestAProviderDownAtStartStopsOnlySingleSignOn(t *testing.T) {
	t.Parallel()
	iss := ssotest.New(t)
	iss.Down()
	e := startSSOEnv(t, iss, auth.LocalSigninAdminsOnly)
	_, err := e.Users.Create(context.Background(), auth.NewUser{Username: "root", Password: handlerstest.TestPassword, Role: auth.Admin})
	require.NoError(t, err)

	res, _ := e.signInLocally(t, "root", handlerstest.TestPassword)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "a local admin signs in while the provider is down")
	res, page := e.get(t, browser(t), sso.StartPath)
	require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	require.Contains(t, page, "The identity provider at "+iss.URL+" does not answer")
	require.NotContains(t, res.Header.Get("Content-Security-Policy"), iss.URL, "no end-session endpoint is known yet")

	iss.Up()
	b := browser(t)
	res, _ = e.signIn(t, b)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "single sign-on works once the provider answers")
	res, _ = e.get(t, b, "/deployments")
	require.Equal(t, http.StatusOK, res.StatusCode, "signed in")
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "form-action 'self' "+iss.URL, "signing out may go to the provider's end-session endpoint")
}
