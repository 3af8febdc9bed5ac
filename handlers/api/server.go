package handlers

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// apiPrefix is where the REST API lives; api/openapi.yaml describes it.
const apiPrefix = "/api/v1"

// maxAPIRequest bounds an API request's body.
const maxAPIRequest = 1 << 20

// apiServer implements the operations of api/openapi.yaml.
type apiServer struct {
	d Deps
	// specs are the decoded specs of deployed driver versions, shared with
	// the deployment pages, and md renders what they keep.
	specs *driverSpecs
	md    *views.Markdown
}

var _ api.StrictServerInterface = (*apiServer)(nil)

// apiRoute is a line of the permission table for an operation of the API;
// its handler comes from the generated server (see withAPIHandlers).
func apiRoute(method, path string, least auth.Role) route {
	return route{method: method, path: apiPrefix + path, least: least, api: true}
}

// apiRoutes are the permission table's lines for the REST API, one per
// operation of api/openapi.yaml (its x-styrmin-role says the same, checked
// by a test).
func apiRoutes() []route {
	get, post := http.MethodGet, http.MethodPost
	return []route{
		{method: get, path: apiPrefix + "/openapi.json", least: auth.Anonymous, handler: openAPIDocument(), bare: true},
		apiRoute(get, "/me", auth.ReadOnly),
		apiRoute(get, "/drivers", auth.ReadOnly),
		apiRoute(get, "/drivers/:name", auth.ReadOnly),
		apiRoute(get, "/drivers/:name/versions/:version", auth.ReadOnly),
		apiRoute(get, "/deployments", auth.ReadOnly),
		apiRoute(post, "/deployments", auth.Operator),
		apiRoute(get, "/deployments/:name", auth.ReadOnly),
		apiRoute(http.MethodDelete, "/deployments/:name", auth.Operator),
		apiRoute(post, "/deployments/:name/upgrade", auth.Operator),
		apiRoute(post, "/deployments/:name/rollback", auth.Operator),
		apiRoute(post, "/deployments/:name/stop", auth.Operator),
		apiRoute(post, "/deployments/:name/start", auth.Operator),
		apiRoute(post, "/deployments/:name/actions/:action", auth.Operator),
		apiRoute(get, "/tasks", auth.ReadOnly),
		apiRoute(get, "/tasks/:id", auth.ReadOnly),
		apiRoute(post, "/tasks/:id/cancel", auth.Operator),
		apiRoute(get, "/users", auth.Admin),
		apiRoute(post, "/users", auth.Admin),
		apiRoute(http.MethodPatch, "/users/:id", auth.Admin),
		// A user's own tokens: any signed-in user (the store refuses others' tokens to non-admins).
		apiRoute(get, "/tokens", auth.ReadOnly),
		apiRoute(post, "/tokens", auth.ReadOnly),
		apiRoute(http.MethodDelete, "/tokens/:id", auth.ReadOnly),
	}
}

// withAPIHandlers gives each API line of table the generated handler of its
// operation. An operation without a line, or a line without an operation, is
// a programming error: the table must say who may call every operation.
func withAPIHandlers(table []route, server api.StrictServerInterface) []route {
	generated := apiHandlerSet{}
	api.RegisterHandlersWithBaseURL(generated, api.NewStrictHandler(server, nil), apiPrefix)
	for i := range table {
		if !table[i].api {
			continue
		}
		key := table[i].method + " " + table[i].path
		h, ok := generated[key]
		if !ok {
			panic("handlers: the permission table names API operation " + key + ", which api/openapi.yaml does not have")
		}
		table[i].handler = h
		delete(generated, key)
	}
	for key := range generated {
		panic("handlers: API operation " + key + " has no line in the permission table (routes.go)")
	}
	return table
}

// apiHandlerSet collects the generated handlers by "METHOD path"; it is the
// api.EchoRouter the generated code registers itself on.
type apiHandlerSet map[string]echo.HandlerFunc

func (s apiHandlerSet) add(method, path string, h echo.HandlerFunc) *echo.Route {
	s[method+" "+path] = h
	return &echo.Route{Method: method, Path: path}
}

func (s apiHandlerSet) CONNECT(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodConnect, p, h)
}
func (s apiHandlerSet) DELETE(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodDelete, p, h)
}
func (s apiHandlerSet) GET(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodGet, p, h)
}
func (s apiHandlerSet) HEAD(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodHead, p, h)
}
func (s apiHandlerSet) OPTIONS(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodOptions, p, h)
}
func (s apiHandlerSet) PATCH(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodPatch, p, h)
}
func (s apiHandlerSet) POST(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodPost, p, h)
}
func (s apiHandlerSet) PUT(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodPut, p, h)
}
func (s apiHandlerSet) TRACE(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodTrace, p, h)
}

// isAPI reports whether the request is for the REST API, whose answers
// (errors included) are JSON.
func isAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	return p == apiPrefix || strings.HasPrefix(p, apiPrefix+"/")
}

// requireToken authenticates an API request by its personal API token and
// refuses users whose role is below least. There is no session and no CSRF
// check: a browser never sends the Authorization header on its own.
func requireToken(tokens *auth.APITokens, least auth.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			secret, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
			if !ok || strings.TrimSpace(secret) == "" {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="styrmin"`)
				return styrmin.Errorf(styrmin.EUNAUTHORIZED, "An API token is needed: Authorization: Bearer <token>. Create one on the API tokens page.")
			}
			if tokens == nil {
				return styrmin.Errorf(styrmin.EUNAVAILABLE, "This server has no API token store.")
			}
			u, err := tokens.Authenticate(c.Request().Context(), strings.TrimSpace(secret))
			if err != nil {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="styrmin", error="invalid_token"`)
				return err
			}
			if !u.Role.AtLeast(least) {
				return styrmin.Errorf(styrmin.EFORBIDDEN, "This needs the %s role; the token acts as %s with the %s role.", least, u.Username, u.Role)
			}
			c.Set(ctxUser, &u)
			c.Request().Body = http.MaxBytesReader(c.Response().Writer, c.Request().Body, maxAPIRequest)
			return next(c)
		}
	}
}

// apiUser returns the user an API request acts as; requireToken has set it.
func apiUser(ctx context.Context) auth.User {
	u, ok := ctx.Value(apiUserKey{}).(*auth.User)
	if !ok {
		panic(fmt.Sprintf("handlers: API operation without a user in its context (%T)", ctx.Value(apiUserKey{})))
	}
	return *u
}

// apiUserKey is the context key under which the API's user travels from the
// Echo context into the context the strict handlers receive.
type apiUserKey struct{}

// withAPIUser puts the authenticated user into the request's context, which
// is what the generated strict handlers pass to the operations.
func withAPIUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := currentUser(c); u != nil {
			r := c.Request()
			c.SetRequest(r.WithContext(context.WithValue(r.Context(), apiUserKey{}, u)))
		}
		return next(c)
	}
}

// openAPIDocument serves the API's OpenAPI document, as embedded in the
// generated code (docs/openapi.json is the same document).
func openAPIDocument() echo.HandlerFunc {
	return func(c echo.Context) error {
		doc, err := api.DocumentJSON()
		if err != nil {
			return fmt.Errorf("handlers: %w", err)
		}
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
	}
}

// problem is an error as RFC 9457 problem details (api.Problem).
func problem(status int, err error, message string) api.Problem {
	p := api.Problem{
		Type:   "about:blank",
		Title:  headingOf[status],
		Status: status,
		Detail: message,
		Code:   api.ProblemCode(codeOf(status, err)),
	}
	if fields := styrmin.ErrorFields(err); len(fields) > 0 {
		p.Fields = &fields
		p.Detail = withFields(err, message)
	}
	return p
}

// withFields is message, or for the pages' "see the marked fields", which a
// script has no fields to see, each field and its message.
func withFields(err error, message string) string {
	if fields := styrmin.ErrorFields(err); len(fields) > 0 && message == deployment.InvalidFields {
		return "Some values need fixing: " + fieldList(fields)
	}
	return message
}

// fieldList is "field: message" for each field, by field name.
func fieldList(fields map[string]string) string {
	names := slices.Sorted(maps.Keys(fields))
	for i, name := range names {
		names[i] = name + ": " + strings.TrimSuffix(fields[name], ".")
	}
	return strings.Join(names, "; ") + "."
}

// codeOf is the error code of an answer: the error's own, else the one its
// HTTP status stands for (a route not found, a malformed parameter...).
func codeOf(status int, err error) string {
	if code := styrmin.ErrorCode(err); code != styrmin.EINTERNAL || status == http.StatusInternalServerError {
		return code
	}
	for code, s := range statusOf {
		if s == status {
			return code
		}
	}
	return styrmin.EINVALID
}
