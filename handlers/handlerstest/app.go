package handlerstest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// TestPassword is the password of every user the tests create.
const TestPassword = "correct horse battery staple"

// App is Styrmin on its own database (apptest), built but not served: the
// tests send requests to Echo, with ways to act as its users.
type App struct {
	*apptest.Env
	// Echo answers the requests: the app's handler, or a variant a test
	// builds with handlers.New on a changed copy of Deps.
	Echo *echo.Echo
}

// Setup returns the app on a new database with an empty catalogue, whose
// tasks are queued but nothing runs them, and which deploys nowhere.
func Setup(t *testing.T) *App {
	t.Helper()
	return newApp(t, apptest.Options{})
}

// SetupOn is Setup on the database pool is connected to (a database the
// test stops, or one it also reads itself).
func SetupOn(t *testing.T, pool *pgxpool.Pool) *App {
	t.Helper()
	return newApp(t, apptest.Options{DatabaseURL: pool.Config().ConnString()})
}

// newApp builds the App of opts, unserved, without the bundled drivers and
// without logs.
func newApp(t *testing.T, opts apptest.Options) *App {
	t.Helper()
	opts.NoServer, opts.NoBundled = true, true
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	env := apptest.New(t, opts)
	return &App{Env: env, Echo: env.Handler}
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
	return a.visitorWith(t, req, a.Sessions.Load(req))
}

// As creates a user with role and returns a Visitor signed in as them.
func (a *App) As(t *testing.T, name string, role auth.Role) (Visitor, auth.User) {
	t.Helper()
	u, err := a.Users.Create(context.Background(), auth.NewUser{Username: name, Password: TestPassword, Role: role})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	sess := a.Sessions.Load(req)
	require.NoError(t, a.Sessions.Start(context.Background(), sess, u, "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", "192.0.2.1"))
	return a.visitorWith(t, req, sess), u
}

func (a *App) visitorWith(t *testing.T, req *http.Request, sess *auth.Session) Visitor {
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

// SignInByForm signs in through the sign-in page, as a browser does, and
// returns the signed-in Visitor with the CSRF token of their next page.
func (a *App) SignInByForm(t *testing.T, username string) Visitor {
	t.Helper()
	v := a.Anonymous(t)
	rec := a.Request(v, http.MethodPost, "/signin", url.Values{"username": {username}, "password": {TestPassword}}, "User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	v = v.Follow(rec)
	page := a.Request(v, http.MethodGet, "/account/sessions", nil)
	require.Equal(t, http.StatusOK, page.Code)
	v.CSRF = Parse(t, page).Find(`meta[name="csrf-token"]`).AttrOr("content", "")
	return v
}

// SigninFrom posts the sign-in form as v from address (the TCP peer), with
// header's extra name, value pairs (X-Forwarded-For).
func (a *App) SigninFrom(v Visitor, address, username, password string, header ...string) *httptest.ResponseRecorder {
	form := url.Values{"username": {username}, "password": {password}, views.CSRFField: {v.CSRF}}
	req := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(form.Encode()))
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
	req.RemoteAddr = net.JoinHostPort(address, "40000")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	req.AddCookie(v.Cookie)
	rec := httptest.NewRecorder()
	a.Echo.ServeHTTP(rec, req)
	return rec
}

// CreateToken creates a token on the API tokens page as v and returns the
// secret the answer shows.
func (a *App) CreateToken(t *testing.T, v Visitor, form url.Values) string {
	t.Helper()
	rec := a.Request(v, http.MethodPost, "/account/tokens", form)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	secret := Text(Parse(t, rec).Find(`[data-testid="new-token"]`))
	require.True(t, strings.HasPrefix(secret, auth.APITokenPrefix), secret)
	return secret
}

// RequireTokenWorks reports whether secret authenticates as want.
func (a *App) RequireTokenWorks(t *testing.T, secret string, want auth.User, why string) {
	t.Helper()
	got, err := a.APITokens.Authenticate(context.Background(), secret)
	require.NoError(t, err, why)
	require.Equal(t, want.ID, got.User.ID, why)
}

// RequireTokenRefused fails the test unless secret is refused as an API token.
func (a *App) RequireTokenRefused(t *testing.T, secret, why string) {
	t.Helper()
	_, err := a.APITokens.Authenticate(context.Background(), secret)
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), why)
}

// Flashes follows a redirect and returns the flash messages of the next page.
func (a *App) Flashes(t *testing.T, v Visitor, rec *httptest.ResponseRecorder) []string {
	t.Helper()
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	page := a.Request(v.Follow(rec), http.MethodGet, rec.Header().Get("Location"), nil)
	require.Equal(t, http.StatusOK, page.Code)
	return Texts(Parse(t, page).Find(`#flash .flash`))
}
