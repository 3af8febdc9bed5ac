package handlerstest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/secrets"
)

// CatalogEnv is a running server on its own database with the bundled drivers imported.
type CatalogEnv struct {
	URL     string
	Catalog *catalog.Catalog
	Users   *auth.Users
	// APITokens are the server's personal API tokens.
	APITokens *auth.APITokens
	// Deployments queues tasks that nothing runs, and has no cluster.
	Deployments *deployment.Service
	// Pool is the server's database, for what another process would do.
	Pool *pgxpool.Pool
}

// CatalogPassword is the password of every user the tests create.
const CatalogPassword = "correct horse battery staple"

// NewCatalogEnv starts the real server (real handlers, sessions and
// database, wired as `styrmin serve` does: sessions, API tokens and
// catalogue kept in memory while database notifications arrive) on a loopback listener, on a
// new database with the bundled drivers imported; its deployments go to no
// cluster.
func NewCatalogEnv(t testing.TB) *CatalogEnv {
	t.Helper()
	env := ServeOn(t, dbtest.New(t))
	_, err := env.Catalog.ImportBundled(context.Background(), bundled.Bundles(), bundled.Names())
	require.NoError(t, err)
	return env
}

// ServeOn starts a server process on pool, as NewCatalogEnv does; several
// on one pool are several servers sharing a database.
func ServeOn(t testing.TB, pool *pgxpool.Pool) *CatalogEnv {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	users, err := auth.NewUsers(pool, auth.WithArgon2(auth.CheapArgon2()))
	require.NoError(t, err)
	sessions, err := auth.NewSessions([]byte(strings.Repeat("k", auth.MinSessionKeyLength)), pool)
	require.NoError(t, err)
	cat := catalog.New(pool)
	tokens := auth.NewAPITokens(pool)
	users.InformSessions(sessions)
	users.InformAPITokens(tokens)
	notifications := db.NewListener(pool, logger)
	sessions.ListenOn(notifications)
	tokens.ListenOn(notifications)
	cat.ListenOn(notifications)
	listenCtx, stopListening := context.WithCancel(context.Background())
	t.Cleanup(stopListening)
	go notifications.Run(listenCtx)
	select {
	case <-notifications.Ready():
	case <-time.After(time.Minute):
		t.Fatal("the notification listener did not start")
	}
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	queue, err := executor.New(pool, executor.Options{})
	require.NoError(t, err)
	svc := deployment.New(deployment.Config{Pool: pool, Catalog: cat, Queue: queue, Box: box})
	srv := httptest.NewServer(handlers.New(handlers.Deps{
		Logger:      logger,
		Sessions:    sessions,
		Users:       users,
		APITokens:   tokens,
		Drivers:     cat,
		Deployments: svc,
	}))
	t.Cleanup(srv.Close)
	return &CatalogEnv{URL: srv.URL, Catalog: cat, Users: users, APITokens: tokens, Deployments: svc, Pool: pool}
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
