package handlers_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

// samplePath fills a route's parameters with values that exist nowhere, so
// that no request of the walk changes anything that later requests depend on.
func samplePath(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		switch {
		case p == "*":
			parts[i] = "css/app.css"
		case strings.HasPrefix(p, ":id"):
			parts[i] = "999999"
		case strings.HasPrefix(p, ":"):
			parts[i] = "no-such-" + p[1:]
		}
	}
	return strings.Join(parts, "/")
}

// TestEveryRouteEnforcesThePermissionTable walks every route registered on the
// Echo instance as anonymous, member, read-only, operator and admin, and checks the
// answer against the least role the permission table gives the route. HEAD
// routes have the permission of their GET line; every GET line has one.
func TestEveryRouteEnforcesThePermissionTable(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	table := map[string]handlers.TableRoute{}
	for _, r := range handlers.Table(a.Deps) {
		table[r.Method+" "+r.Path] = r
	}
	personas := map[auth.Role]handlerstest.Visitor{auth.Anonymous: a.Anonymous(t)}
	tokens := map[auth.Role]string{}
	for _, role := range auth.Roles() {
		var u auth.User
		personas[role], u = a.As(t, "walker-"+strings.ReplaceAll(role.String(), "-", ""), role)
		created, err := a.Deps.APITokens.Create(context.Background(), auth.Credential{User: u}, "walker", nil)
		require.NoError(t, err)
		tokens[role] = created.Secret
	}
	// An action token of a real run: it reaches the primitives and nothing else.
	actionToken := "sta_" + strings.TrimPrefix(tokens[auth.Admin], auth.APITokenPrefix)

	registered := a.Echo.Routes()
	require.NotEmpty(t, registered)
	// Signing out really ends the walkers' sessions, so it is walked last.
	signout := func(r *echo.Route) int {
		if r.Method+" "+r.Path == "POST /signout" {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(registered, func(x, y *echo.Route) int { return signout(x) - signout(y) })
	heads := map[string]bool{}
	for _, r := range registered {
		key := r.Method + " " + r.Path
		tableKey := key
		if r.Method == http.MethodHead {
			heads[r.Path] = true
			tableKey = http.MethodGet + " " + r.Path
		}
		line, ok := table[tableKey]
		require.True(t, ok, "handlers.TableRoute %s is registered but not in the permission table (routes.go)", key)
		least := line.Least
		target := samplePath(r.Path)
		if line.API && least == auth.Anonymous {
			// An operation open to anyone (the password grant) reads no
			// token: every caller's empty body is refused alike.
			for _, token := range []string{"", actionToken, tokens[auth.Admin]} {
				rec := a.Call(t, token, r.Method, target, nil)
				require.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", key, rec.Body.String())
			}
			continue
		}
		if line.API {
			rec := a.Request(personas[auth.Admin], r.Method, target, nil)
			require.Equal(t, http.StatusUnauthorized, rec.Code, "%s: an admin's session is not an API token", key)
			rec = a.Call(t, actionToken, r.Method, target, nil)
			require.Equal(t, http.StatusUnauthorized, rec.Code, "%s: an action token is not an API token", key)
		}
		for _, role := range append([]auth.Role{auth.Anonymous}, auth.Roles()...) {
			var form url.Values
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				form = url.Values{}
			}
			rec := a.Request(personas[role], r.Method, target, form)
			if line.API {
				rec = a.Call(t, tokens[role], r.Method, target, nil)
			}
			what := key + " as " + role.String()
			switch {
			case line.API && role == auth.Anonymous:
				require.Equal(t, http.StatusUnauthorized, rec.Code, "%s: no token", what)
			case line.ActionToken:
				require.Equal(t, http.StatusUnauthorized, rec.Code, "%s: a session is not an action token", what)
			case role == auth.Anonymous && least != auth.Anonymous:
				require.Equal(t, http.StatusSeeOther, rec.Code, what)
				require.True(t, strings.HasPrefix(rec.Header().Get("Location"), "/signin"), "%s goes to sign-in, not %q", what, rec.Header().Get("Location"))
			case line.Scoped && !role.AtLeast(auth.ReadOnly):
				// A member of no team may not know any deployment exists.
				require.Equal(t, http.StatusNotFound, rec.Code, "%s: %s", what, rec.Body.String())
			case !role.AtLeast(least):
				require.Equal(t, http.StatusForbidden, rec.Code, what)
			default:
				require.NotEqual(t, http.StatusForbidden, rec.Code, "%s: %s", what, rec.Body.String())
				require.Less(t, rec.Code, 500, "%s: %s", what, rec.Body.String())
				if key != "POST /signout" { // signing out ends at the sign-in page by design
					require.False(t, strings.HasPrefix(rec.Header().Get("Location"), "/signin"), "%s is not sent to sign-in", what)
				}
			}
		}
	}
	for _, r := range handlers.Table(a.Deps) {
		if r.Method == http.MethodGet {
			require.True(t, heads[r.Path], "GET %s answers HEAD too", r.Path)
		}
	}
}

// TestHeadAnswersLikeGet asks every GET route of the table with HEAD, over a
// real connection, as an admin and as an anonymous visitor: the status (and
// the content type of a page) is that of GET (never 405, which uptime monitors read as down),
// and there is no body.
func TestHeadAnswersLikeGet(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	srv := httptest.NewServer(a.Echo)
	t.Cleanup(srv.Close)
	admin, _ := a.As(t, "root", auth.Admin)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	paths := []string{"/drivers/hello-web", "/drivers?q=x"}
	for _, r := range handlers.Table(a.Deps) {
		if r.Method == http.MethodGet {
			paths = append(paths, samplePath(r.Path))
		}
	}
	for _, v := range []handlerstest.Visitor{{}, admin} {
		for _, path := range paths {
			do := func(method string) *http.Response {
				req, err := http.NewRequest(method, srv.URL+path, nil)
				require.NoError(t, err)
				if v.Cookie != nil {
					req.AddCookie(v.Cookie)
				}
				res, err := client.Do(req)
				require.NoError(t, err)
				body, err := io.ReadAll(res.Body)
				require.NoError(t, err)
				require.NoError(t, res.Body.Close())
				if method == http.MethodHead {
					require.Empty(t, body, "HEAD %s", path)
				}
				return res
			}
			get, head := do(http.MethodGet), do(http.MethodHead)
			require.NotEqual(t, http.StatusMethodNotAllowed, head.StatusCode, "HEAD %s", path)
			require.Equal(t, get.StatusCode, head.StatusCode, "HEAD %s answers as GET does", path)
			if get.StatusCode == http.StatusOK {
				require.Equal(t, get.Header.Get("Content-Type"), head.Header.Get("Content-Type"), "HEAD %s", path)
			}
		}
	}
}

// ownCredentialRoutes change nothing but the caller's own sessions, password
// and API tokens, so every signed-in role (and for signing in, anyone) may
// call them.
var ownCredentialRoutes = map[string]bool{
	"POST /signin":                       true,
	"POST /signout":                      true,
	"POST /account/sessions/:id/end":     true,
	"POST /account/password":             true,
	"POST /account/tokens":               true,
	"POST /account/tokens/:id/revoke":    true,
	"POST /api/v1/tokens":                true,
	"POST /api/v1/tokens/password-grant": true,
	"DELETE /api/v1/tokens/:id":          true,
}

// TestStateChangesNeedOperator checks the rule of the permission table: a
// read-only user can change nothing. The only exceptions change nothing but
// the caller's own sessions, password and tokens, and let every signed-in
// role in.
func TestStateChangesNeedOperator(t *testing.T) {
	t.Parallel()
	for _, r := range handlers.Table(handlers.Deps{}) {
		key := r.Method + " " + r.Path
		if ownCredentialRoutes[key] {
			require.False(t, r.Least.AtLeast(auth.Operator), "%s changes only the caller's own credentials: every signed-in role may call it", key)
			continue
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			continue
		}
		if r.ActionToken {
			require.True(t, strings.HasPrefix(r.Path, action.Prefix), "%s takes an action token, so it is a primitive under %s", key, action.Prefix)
			continue
		}
		require.True(t, r.Least.AtLeast(auth.Operator), "%s changes state but lets %s in", key, r.Least)
	}
}

func TestEveryTableRouteIsRegisteredOnce(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range handlers.Table(handlers.Deps{}) {
		key := r.Method + " " + r.Path
		require.False(t, seen[key], "%s appears twice in the permission table", key)
		seen[key] = true
	}
}

func TestReadOnlyUserIsRefusedEveryStateChange(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, _ := a.As(t, "reader", auth.ReadOnly)
	readerToken := a.TokenFor(t, "scripted-reader", auth.ReadOnly)
	for _, r := range handlers.Table(a.Deps) {
		if r.Method == http.MethodGet || ownCredentialRoutes[r.Method+" "+r.Path] {
			continue
		}
		rec := a.Request(reader, r.Method, samplePath(r.Path), url.Values{})
		if r.API {
			rec = a.Call(t, readerToken, r.Method, samplePath(r.Path), nil)
		}
		if r.ActionToken {
			require.Equal(t, http.StatusUnauthorized, rec.Code, "%s %s takes an action token, not a session", r.Method, r.Path)
			continue
		}
		require.Equal(t, http.StatusForbidden, rec.Code, "%s %s", r.Method, r.Path)
		require.Contains(t, rec.Body.String(), "read-only role", "the page says why")
	}
}

// teamPath fills a route's parameters as samplePath does, but with a real
// deployment and task of another team: :name is that deployment's, :id its
// task's.
func teamPath(path, name string, task int64) string {
	parts := strings.Split(samplePath(path), "/")
	for i, p := range strings.Split(path, "/") {
		switch p {
		case ":name":
			parts[i] = name
		case ":id":
			parts[i] = strconv.FormatInt(task, 10)
		}
	}
	return strings.Join(parts, "/")
}

// TestEveryRouteHidesAnotherTeamsDeploymentFromAnOperatorOfOneTeam walks
// every route that names something, as amy, an operator of team a, with its
// :name and :id filled with beta and its install task, the real deployment
// and task of team b (page routes with her session, the REST API's with her
// token). A route about a deployment or a task answers 404, the answer to a
// name nobody used; any other route (a driver, a webhook, a user, a source
// by that name or id) answers 404 when it has no such thing, or 403 when it
// is not a member's to call; none answers 2xx or 3xx, and beta has no new
// task. Routes that change only the caller's own credentials (ownCredentialRoutes)
// are about amy's own sessions and tokens, not a team's, and are left out, as
// are the action primitives (an action token's) and the bare routes.
func TestEveryRouteHidesAnotherTeamsDeploymentFromAnOperatorOfOneTeam(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	before := len(s.TasksOf(t, "beta"))
	walked := 0
	for _, r := range handlers.Table(s.Deps) {
		key := r.Method + " " + r.Path
		if r.Bare || r.ActionToken || ownCredentialRoutes[key] || !strings.Contains(r.Path, "/:") {
			continue
		}
		target := teamPath(r.Path, "beta", s.betaTask)
		var rec *httptest.ResponseRecorder
		if r.API {
			rec = s.Call(t, s.amyToken, r.Method, target, nil)
		} else {
			var form url.Values
			if r.Method != http.MethodGet {
				form = url.Values{"confirm": {"beta"}, "name": {"beta"}}
			}
			rec = s.Request(s.amy, r.Method, target, form)
		}
		walked++
		if r.Scoped {
			require.Equal(t, http.StatusNotFound, rec.Code, "%s (%s): %s", key, target, rec.Body.String())
			continue
		}
		require.Contains(t, []int{http.StatusNotFound, http.StatusForbidden}, rec.Code, "%s (%s): %s", key, target, rec.Body.String())
	}
	require.Greater(t, walked, 50, "the walk reaches the routes about a deployment, a task and the rest")
	require.Len(t, s.TasksOf(t, "beta"), before, "nothing was queued on beta")
	got, err := s.Service.Get(context.Background(), "beta")
	require.NoError(t, err)
	require.Nil(t, got.DeletedAt, "beta is still there")
}
