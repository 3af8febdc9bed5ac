// Package handlers is Styrmin's web front: the Echo server, the permission
// table, the middleware that enforces it and the one error handler, over
// three sibling adapters: the pages (web), the REST API (api) and the action
// primitives (action), which share only httpx.
//
// Every route is registered from the permission table in routes.go, which
// says for each method and path the least role allowed to call it.
package handlers

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/web"
	"github.com/styrmin/styrmin/lru"
	"github.com/styrmin/styrmin/teams"
)

// Deps is everything the handlers need; cmd/styrmin builds it.
type Deps struct {
	// Logger receives request logs and internal errors.
	Logger *slog.Logger
	// Sessions keeps sessions: the cookie and the server-side record.
	Sessions *auth.Sessions
	// Users stores users and checks their passwords.
	Users web.UserStore
	// SSO is the OpenID Connect provider people sign in through
	// (sso.Provider); nil without single sign-on.
	SSO web.SingleSignOn
	// Ready lists what /readyz checks: the database, the cluster, ...
	Ready []ReadyCheck
	// Drivers is the driver catalogue (catalog.Catalog).
	Drivers DriverCatalog
	// ChartHosts keeps the hosts remote charts may come from although they
	// resolve to addresses that are not public (catalog.Catalog).
	ChartHosts web.ChartHostSettings
	// Deployments installs, changes and reads deployments and their tasks
	// (deployment.Service); handlers only ever go through it.
	Deployments Deployments
	// SimulatedCluster is set when the cluster is the local development one
	// (kube.Client.Simulated): deployment pages say its pods are simulated.
	SimulatedCluster bool
	// Primitives serves the action primitives (deployment.Service); nil
	// when the server runs no deployments.
	Primitives action.Primitives
	// APITokens stores the personal API tokens that authenticate REST API calls.
	APITokens *auth.APITokens
	// Audit records every state-changing request (audit.Store); nil records
	// nothing (tests of a single part).
	Audit AuditLog
	// Webhooks keeps the webhooks that hear of tasks (webhooks.Store).
	Webhooks Webhooks
	// Schedules keeps the schedules of manual actions (schedule.Service).
	Schedules Schedules
	// Sources keeps the catalogue sources (source.Service).
	Sources api.Sources
	// Teams says which team each deployment is in and each user's role in
	// each team: the permission table's roles over a deployment are checked
	// against it (requireTeamRole).
	Teams *teams.Store
	// Requests hears of every request answered (metrics.Metrics); nil hears nothing.
	Requests RequestObserver
	// Caches exports the lookups of the pages' in-memory caches
	// (metrics.Metrics); nil exports nothing.
	Caches CacheWatcher
	// TrustedProxies are the networks of the reverse proxies in front of the
	// server: only from a peer in them are X-Forwarded-For and
	// X-Forwarded-Proto believed. Empty, the peer is the client.
	TrustedProxies []*net.IPNet
	// Serves is the part of the routes the server answers ("" for all).
	Serves Part
}

// RequestObserver hears of the requests the server answers (metrics.Metrics).
type RequestObserver interface {
	// RequestServed is called once per request: route is the pattern of the
	// route that answered (never the request's own path).
	RequestServed(route, method string, status int, took time.Duration)
}

// CacheWatcher exports the hits and misses of a cache named by a fixed word
// (metrics.Metrics).
type CacheWatcher interface {
	WatchCache(name string, stats func() lru.Stats)
}

// Schedules is what the pages and the API need of the schedules (schedule.Service).
type Schedules interface {
	web.Schedules
	api.Schedules
}

// Webhooks is what the pages and the API need of the webhooks (webhooks.Store).
type Webhooks interface {
	web.Webhooks
	api.Webhooks
}

// DriverCatalog is what the pages and the API need from the driver
// catalogue (catalog.Catalog).
type DriverCatalog interface {
	web.DriverCatalog
	api.DriverCatalog
}

// Deployments is what the pages and the API need from the deployment
// service (deployment.Service).
type Deployments interface {
	web.Deployments
	api.Deployments
	web.NamespacePolicies
}

// ReadyCheck is one thing the server needs to serve requests, checked by /readyz.
type ReadyCheck struct {
	// Name identifies the check in /readyz output, e.g. "database".
	Name string
	// Check returns nil when the dependency answers; its error is logged, never shown.
	Check func(context.Context) error
}

// New returns the Echo server with every route of the permission table.
func New(d Deps) *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	// Client addresses come from the connection, or from the forwarding
	// headers of a trusted proxy, never from headers a client can forge:
	// sign-in throttling counts failures per address.
	e.IPExtractor, e.SchemeExtractor = clientOf(d.TrustedProxies)
	e.HTTPErrorHandler = errorHandler(d.Logger)
	table := slices.DeleteFunc(routes(d), func(r route) bool { return !d.Serves.serves(r) })
	// The embedded OpenAPI document is part of the binary: one that does not
	// load is a programming error, caught by any test.
	docRouter, err := api.Router()
	if err != nil {
		panic(err)
	}
	bare := map[string]bool{}
	for _, r := range table {
		if r.bare || r.actionToken || r.api {
			bare[r.path] = true
		}
	}
	// The body limit comes before anything reads a form (the CSRF check does),
	// so an oversized upload is refused before it is read; 1 MiB is for the
	// multipart envelope around the largest bundle archive.
	bodyLimit := middleware.BodyLimit(fmt.Sprintf("%dM", web.MaxUploadMiB+1))
	// checkInput follows the body limit (it reads URL-encoded forms) and comes
	// before the session, whose lookup is the first to reach PostgreSQL.
	formOrigin := func() string { return "" }
	if d.SSO != nil {
		formOrigin = d.SSO.EndSessionOrigin
	}
	e.Use(assignRequestIDs(d.TrustedProxies), observeRequests(d.Requests, table), logRequests(d.Logger), recoverPanics(d.Logger), securityHeaders(formOrigin), hsts, bodyLimit, checkInput,
		loadSession(d.Sessions, bare, d.Logger))
	for _, r := range table {
		// On a route about one deployment, the role that counts is the
		// user's over that deployment's team: anyone signed in passes the
		// first check, and requireTeamRole makes the real one.
		least, scope := r.least, scopeOf(r.method, r.path)
		if scope != nil {
			least = auth.Member
		}
		// teamRole is the real check of a route about a deployment, and
		// nothing on the others.
		var teamRole []echo.MiddlewareFunc
		if scope != nil {
			teamRole = []echo.MiddlewareFunc{requireTeamRole(d.Teams, scope, r.least)}
		}
		var mw []echo.MiddlewareFunc
		switch {
		case r.api:
			mw = slices.Concat([]echo.MiddlewareFunc{requireToken(d.APITokens, least, r.maxBody)}, teamRole, []echo.MiddlewareFunc{api.ValidateRequest(docRouter), withAPICredential, withClientAddress})
		case r.actionToken:
			mw = []echo.MiddlewareFunc{requireActionToken(d.Primitives)}
		case !r.bare:
			mw = slices.Concat([]echo.MiddlewareFunc{requireRole(least)}, teamRole, []echo.MiddlewareFunc{checkCSRF})
		}
		if r.change.action != "" && d.Audit != nil {
			mw = append([]echo.MiddlewareFunc{auditChanges(d.Audit, r.change, r.least, d.Logger)}, mw...)
		}
		for _, method := range methodsOf(r) {
			e.Add(method, r.path, r.handler, mw...)
		}
	}
	return e
}

// methodsOf returns the methods a route of the table is registered for: HEAD
// goes with every GET (uptime monitors use it; Echo does not derive it), with
// the same handler and permission; net/http sends no body in answer to HEAD.
func methodsOf(r route) []string {
	if r.method == http.MethodGet {
		return []string{http.MethodGet, http.MethodHead}
	}
	return []string{r.method}
}
