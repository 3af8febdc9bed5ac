package handlerstest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
)

// CatalogEnv is a running server on its own database with the bundled
// drivers imported: apptest's environment, its notifications running.
type CatalogEnv struct {
	*apptest.Env
}

// CatalogPassword is the password of every user the tests create.
const CatalogPassword = TestPassword

// NewCatalogEnv starts the real server (wired by app.New as `styrmin serve`
// is: sessions, API tokens and catalogue kept in memory while database
// notifications arrive) on a loopback listener, on a new database with the
// bundled drivers imported; its tasks are queued but nothing runs them, and
// its deployments go to no cluster.
func NewCatalogEnv(t testing.TB) *CatalogEnv {
	t.Helper()
	return serve(t, apptest.Options{})
}

// ServeOn starts another server process on env's database, as NewCatalogEnv
// does: several servers sharing a database.
func ServeOn(t testing.TB, env *CatalogEnv) *CatalogEnv {
	t.Helper()
	return serve(t, apptest.Options{DatabaseURL: env.DatabaseURL, SecretKey: env.SecretKey, NoBundled: true})
}

// serve starts the server of opts, without logs, and its notifications.
func serve(t testing.TB, opts apptest.Options) *CatalogEnv {
	t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	env := apptest.New(t, opts)
	env.Start(t)
	return &CatalogEnv{Env: env}
}

// SignedIn creates a user with role and returns an HTTP client signed in as
// that user; it does not follow redirects, so tests see them.
func (env *CatalogEnv) SignedIn(t testing.TB, role auth.Role) *http.Client {
	t.Helper()
	name := strings.ReplaceAll(role.String(), "-", "") + "-user"
	_, err := env.Users.Create(context.Background(), auth.NewUser{Username: name, Password: CatalogPassword, Role: role})
	require.NoError(t, err)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, doc := env.Get(t, client, "/signin", http.StatusOK)
	res, err := client.PostForm(env.URL+"/signin", url.Values{
		"username": {name}, "password": {CatalogPassword}, "_csrf": {CSRFToken(t, doc)},
	})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "sign-in as %s succeeds", name)
	return client
}

// Get requests path, checks the status and parses the HTML body.
func (env *CatalogEnv) Get(t testing.TB, client *http.Client, path string, status int) (*http.Response, *goquery.Document) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.URL+path, nil)
	require.NoError(t, err)
	return env.Do(t, client, req, status)
}

// Do sends req, checks the status and parses the HTML body.
func (env *CatalogEnv) Do(t testing.TB, client *http.Client, req *http.Request, status int) (*http.Response, *goquery.Document) {
	t.Helper()
	res, err := client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, status, res.StatusCode, "%s %s", req.Method, req.URL.Path)
	doc, err := goquery.NewDocumentFromReader(res.Body)
	require.NoError(t, err)
	return res, doc
}

// CSRFToken returns the CSRF token of the first form on the page.
func CSRFToken(t testing.TB, doc *goquery.Document) string {
	t.Helper()
	token, ok := doc.Find(`input[name="_csrf"]`).First().Attr("value")
	require.True(t, ok, "the page has a CSRF field")
	require.NotEmpty(t, token)
	return token
}
