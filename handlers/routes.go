package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// route is one line of the permission table.
type route struct {
	method string
	path   string
	// least is the least role allowed; auth.Anonymous means everyone.
	least   auth.Role
	handler echo.HandlerFunc
	// bare routes (health checks, static files) skip the session, the role check and CSRF.
	bare bool
	// actionToken routes are the action primitives: no session, no CSRF; the
	// handler takes an action token (see action_api.go) and nothing else.
	actionToken bool
	// api routes are operations of the REST API (api.go): no session, no
	// CSRF; a personal API token, whose user's role is checked against least.
	api bool
}

// routes is THE permission table: every route the server has, and who may call
// it. Each GET route also answers HEAD (see methodsOf). To add a page, add a line here; the route-walking test in
// routes_test.go checks every registered route against this table for every role.
// A handler's new dependency goes into Deps, and into addTestDeps
// (deps_test.go) so that the walk can call it.
//
// Rules the test enforces: state-changing methods (anything but GET/HEAD) need
// at least operator, except those that change only the caller's own
// credentials: signing in (anyone), signing out, ending one of one's own
// sessions, changing one's own password, and creating and revoking one's
// own API tokens (any signed-in user; the token store lets only admins
// revoke another user's token).
func routes(d Deps) []route {
	md := views.NewMarkdown()
	specs := newDriverSpecs(driverSpecCacheBytes)
	return append([]route{
		{method: http.MethodGet, path: "/healthz", least: auth.Anonymous, handler: healthz, bare: true},
		{method: http.MethodGet, path: "/readyz", least: auth.Anonymous, handler: readyz(d.Ready, d.Logger), bare: true},
		{method: http.MethodGet, path: "/static/*", least: auth.Anonymous, handler: staticFiles(), bare: true},
		{method: http.MethodGet, path: actionAPIPrefix + "openapi.json", least: auth.Anonymous, handler: actionsDocument(), bare: true},

		{method: http.MethodGet, path: "/signin", least: auth.Anonymous, handler: signinShow()},
		{method: http.MethodPost, path: "/signin", least: auth.Anonymous, handler: signinSubmit(d.Users, d.Sessions)},
		{method: http.MethodPost, path: "/signout", least: auth.ReadOnly, handler: signoutSubmit(d.Sessions)},
		{method: http.MethodGet, path: "/account/sessions", least: auth.ReadOnly, handler: sessionList(d.Sessions)},
		{method: http.MethodPost, path: "/account/sessions/:id/end", least: auth.ReadOnly, handler: sessionEnd(d.Sessions)},
		{method: http.MethodGet, path: "/account/password", least: auth.ReadOnly, handler: accountPasswordShow()},
		{method: http.MethodPost, path: "/account/password", least: auth.ReadOnly, handler: accountPasswordSubmit(d.Users, d.Sessions)},
		{method: http.MethodGet, path: "/account/tokens", least: auth.ReadOnly, handler: tokenList(d.APITokens)},
		{method: http.MethodPost, path: "/account/tokens", least: auth.ReadOnly, handler: tokenCreate(d.APITokens)},
		{method: http.MethodPost, path: "/account/tokens/:id/revoke", least: auth.ReadOnly, handler: tokenRevoke(d.APITokens)},

		{method: http.MethodGet, path: "/", least: auth.ReadOnly, handler: homeShow()},

		{method: http.MethodGet, path: "/drivers", least: auth.ReadOnly, handler: driverList(d.Drivers, newDriverGrids(driverGridCacheBytes))},
		{method: http.MethodGet, path: "/drivers/upload", least: auth.Admin, handler: driverUploadShow()},
		{method: http.MethodPost, path: "/drivers/upload", least: auth.Admin, handler: driverUploadSubmit(d.Drivers)},
		{method: http.MethodGet, path: "/drivers/:name", least: auth.ReadOnly, handler: driverShow(d.Drivers, views.NewMarkdown(), newDriverPages(driverPageCacheBytes))},
		{method: http.MethodGet, path: "/drivers/:name/:version/icon", least: auth.ReadOnly, handler: driverIcon(d.Drivers)},
		{method: http.MethodGet, path: "/drivers/:name/deploy", least: auth.Operator, handler: deploymentInstallShow(d.Deployments, d.Drivers, md)},
		{method: http.MethodPost, path: "/drivers/:name/deploy", least: auth.Operator, handler: deploymentInstallSubmit(d.Deployments, d.Drivers, md)},

		{method: http.MethodGet, path: "/deployments", least: auth.ReadOnly, handler: deploymentList(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name", least: auth.ReadOnly, handler: deploymentShow(d.Deployments, d.Drivers, specs, d.SimulatedCluster, md)},
		{method: http.MethodGet, path: "/deployments/:name/upgrade", least: auth.Operator, handler: deploymentUpgradeShow(d.Deployments, d.Drivers, md)},
		{method: http.MethodPost, path: "/deployments/:name/upgrade/review", least: auth.Operator, handler: deploymentUpgradeReview(d.Deployments, d.Drivers, md)},
		{method: http.MethodPost, path: "/deployments/:name/upgrade/edit", least: auth.Operator, handler: deploymentUpgradeEdit(d.Deployments, d.Drivers, md)},
		{method: http.MethodPost, path: "/deployments/:name/upgrade", least: auth.Operator, handler: deploymentUpgradeConfirm(d.Deployments)},
		{method: http.MethodPost, path: "/deployments/:name/rollback", least: auth.Operator, handler: deploymentRollback(d.Deployments)},
		{method: http.MethodPost, path: "/deployments/:name/actions/:action", least: auth.Operator, handler: deploymentActionRun(d.Deployments)},
		{method: http.MethodPost, path: "/deployments/:name/stop", least: auth.Operator, handler: deploymentComponents(stopOf(d.Deployments), "stop")},
		{method: http.MethodPost, path: "/deployments/:name/start", least: auth.Operator, handler: deploymentComponents(startOf(d.Deployments), "start")},
		{method: http.MethodGet, path: "/deployments/:name/delete", least: auth.Operator, handler: deploymentDeleteShow(d.Deployments, md)},
		{method: http.MethodPost, path: "/deployments/:name/delete", least: auth.Operator, handler: deploymentDeleteSubmit(d.Deployments, md)},
		{method: http.MethodGet, path: "/tasks", least: auth.ReadOnly, handler: taskActivity(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name/tasks", least: auth.ReadOnly, handler: taskList(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name/tasks/:id", least: auth.ReadOnly, handler: taskShow(d.Deployments)},
		{method: http.MethodGet, path: "/deployments/:name/tasks/:id/steps", least: auth.ReadOnly, handler: taskSteps(d.Deployments)},
		{method: http.MethodPost, path: "/deployments/:name/tasks/:id/cancel", least: auth.Operator, handler: taskCancel(d.Deployments)},

		{method: http.MethodGet, path: "/users", least: auth.Admin, handler: userList(d.Users)},
		{method: http.MethodPost, path: "/users", least: auth.Admin, handler: userCreate(d.Users)},
		{method: http.MethodPost, path: "/users/:id/role", least: auth.Admin, handler: userRole(d.Users)},
		{method: http.MethodPost, path: "/users/:id/disable", least: auth.Admin, handler: userDisable(d.Users, true)},
		{method: http.MethodPost, path: "/users/:id/enable", least: auth.Admin, handler: userDisable(d.Users, false)},
		{method: http.MethodPost, path: "/users/:id/password", least: auth.Admin, handler: userPassword(d.Users)},
		{method: http.MethodGet, path: "/users/:id/tokens", least: auth.Admin, handler: userTokenList(d.Users, d.APITokens)},
	}, append(actionRoutes(d.Primitives, d.Logger), withAPIHandlers(apiRoutes(), &apiServer{d: d, specs: specs, md: md})...)...)
}
