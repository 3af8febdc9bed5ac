package handlerstest

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
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/views"
)

// TestPassword is the password of every user the tests create.
const TestPassword = "correct horse battery staple"

// App is a server on its own database, with ways to act as its users.
type App struct {
	Echo     *echo.Echo
	Deps     handlers.Deps
	Users    *auth.Users
	Sessions *auth.Sessions
}

// Setup returns a server with the real handlers, sessions and database.
func Setup(t *testing.T) *App {
	t.Helper()
	return SetupOn(t, dbtest.New(t))
}

// SetupOn returns a server with the real handlers and sessions on pool, a
// migrated database.
func SetupOn(t *testing.T, pool *pgxpool.Pool) *App {
	t.Helper()
	users, err := auth.NewUsers(pool, auth.WithArgon2(auth.CheapArgon2()))
	require.NoError(t, err)
	sessions, err := auth.NewSessions([]byte(strings.Repeat("s", auth.MinSessionKeyLength)), pool)
	require.NoError(t, err)
	deps := handlers.Deps{
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Sessions: sessions,
		Users:    users,
		Ready:    []handlers.ReadyCheck{{Name: "database", Check: pool.Ping}},
	}
	AddTestDeps(t, pool, &deps)
	return &App{Echo: handlers.New(deps), Deps: deps, Users: users, Sessions: sessions}
}

// Visitor is someone using the app: their session cookie and CSRF token
// (empty for a Visitor who has no cookie yet).
type Visitor struct {
	Cookie *http.Cookie
	CSRF   string
}

// Anonymous returns a Visitor with an anonymous session.
func (a *App) Anonymous(t *testing.T) Visitor {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	return a.VisitorWith(t, req, a.Sessions.Load(req))
}

// As creates a user with role and returns a Visitor signed in as them.
func (a *App) As(t *testing.T, name string, role auth.Role) (Visitor, auth.User) {
	t.Helper()
	u, err := a.Users.Create(context.Background(), auth.NewUser{Username: name, Password: TestPassword, Role: role})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	sess := a.Sessions.Load(req)
	require.NoError(t, a.Sessions.Start(context.Background(), sess, u, "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", "192.0.2.1"))
	return a.VisitorWith(t, req, sess), u
}

func (a *App) VisitorWith(t *testing.T, req *http.Request, sess *auth.Session) Visitor {
	t.Helper()
	rec := httptest.NewRecorder()
	require.NoError(t, a.Sessions.Save(rec, req, sess))
	return Visitor{Cookie: rec.Result().Cookies()[0], CSRF: sess.CSRF}
}

// Request sends a request as v; form values go in the body, with v's CSRF token.
func (a *App) Request(v Visitor, method, target string, form url.Values, header ...string) *httptest.ResponseRecorder {
	var body io.Reader
	if form != nil {
		if _, ok := form[views.CSRFField]; !ok && v.CSRF != "" {
			form.Set(views.CSRFField, v.CSRF)
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
	if v.Cookie != nil {
		req.AddCookie(v.Cookie)
	}
	rec := httptest.NewRecorder()
	a.Echo.ServeHTTP(rec, req)
	return rec
}

// Follow returns the Visitor carrying the session cookie rec set, if any.
func (v Visitor) Follow(rec *httptest.ResponseRecorder) Visitor {
	for _, c := range rec.Result().Cookies() {
		if c.Name == auth.SessionCookie {
			v.Cookie = c
		}
	}
	return v
}

// Parse parses an HTML response.
func Parse(t *testing.T, rec *httptest.ResponseRecorder) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
	require.NoError(t, err)
	return doc
}

// Text returns the whitespace-normalised text of the selection.
func Text(sel *goquery.Selection) string {
	return strings.Join(strings.Fields(sel.Text()), " ")
}

// Texts returns the normalised text of every element of the selection.
func Texts(sel *goquery.Selection) []string {
	out := []string{}
	sel.Each(func(_ int, s *goquery.Selection) { out = append(out, Text(s)) })
	return out
}
