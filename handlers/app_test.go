package handlers

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/views"
)

// testPassword is the password of every user the tests create.
const testPassword = "correct horse battery staple"

// app is a server on its own database, with ways to act as its users.
type app struct {
	e        *echo.Echo
	deps     Deps
	users    *auth.Users
	sessions *auth.Sessions
}

// setup returns a server with the real handlers, sessions and database.
func setup(t *testing.T) *app {
	t.Helper()
	return setupOn(t, dbtest.New(t))
}

// setupOn returns a server with the real handlers and sessions on pool, a
// migrated database.
func setupOn(t *testing.T, pool *pgxpool.Pool) *app {
	t.Helper()
	users, err := auth.NewUsers(pool, auth.WithArgon2(auth.CheapArgon2()))
	require.NoError(t, err)
	sessions, err := auth.NewSessions([]byte(strings.Repeat("s", auth.MinSessionKeyLength)), pool)
	require.NoError(t, err)
	deps := Deps{
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Sessions: sessions,
		Users:    users,
		Ready:    []ReadyCheck{{Name: "database", Check: pool.Ping}},
	}
	addTestDeps(t, pool, &deps)
	return &app{e: New(deps), deps: deps, users: users, sessions: sessions}
}

// visitor is someone using the app: their session cookie and CSRF token
// (empty for a visitor who has no cookie yet).
type visitor struct {
	cookie *http.Cookie
	csrf   string
}

// anonymous returns a visitor with an anonymous session.
func (a *app) anonymous(t *testing.T) visitor {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	return a.visitorWith(t, req, a.sessions.Load(req))
}

// as creates a user with role and returns a visitor signed in as them.
func (a *app) as(t *testing.T, name string, role auth.Role) (visitor, auth.User) {
	t.Helper()
	u, err := a.users.Create(context.Background(), auth.NewUser{Username: name, Password: testPassword, Role: role})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	sess := a.sessions.Load(req)
	require.NoError(t, a.sessions.Start(context.Background(), sess, u, "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", "192.0.2.1"))
	return a.visitorWith(t, req, sess), u
}

func (a *app) visitorWith(t *testing.T, req *http.Request, sess *auth.Session) visitor {
	t.Helper()
	rec := httptest.NewRecorder()
	require.NoError(t, a.sessions.Save(rec, req, sess))
	return visitor{cookie: rec.Result().Cookies()[0], csrf: sess.CSRF}
}

// request sends a request as v; form values go in the body, with v's CSRF token.
func (a *app) request(v visitor, method, target string, form url.Values, header ...string) *httptest.ResponseRecorder {
	var body io.Reader
	if form != nil {
		if _, ok := form[views.CSRFField]; !ok && v.csrf != "" {
			form.Set(views.CSRFField, v.csrf)
		}
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if v.cookie != nil {
		req.AddCookie(v.cookie)
	}
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	return rec
}

// follow returns the visitor carrying the session cookie rec set, if any.
func (v visitor) follow(rec *httptest.ResponseRecorder) visitor {
	for _, c := range rec.Result().Cookies() {
		if c.Name == auth.SessionCookie {
			v.cookie = c
		}
	}
	return v
}

// parse parses an HTML response.
func parse(t *testing.T, rec *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
	require.NoError(t, err)
	return doc
}

// text returns the whitespace-normalised text of the selection.
func text(sel *goquery.Selection) string {
	return strings.Join(strings.Fields(sel.Text()), " ")
}

// texts returns the normalised text of every element of the selection.
func texts(sel *goquery.Selection) []string {
	out := []string{}
	sel.Each(func(_ int, s *goquery.Selection) { out = append(out, text(s)) })
	return out
}
