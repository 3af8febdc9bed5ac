// Package handlers is Styrmin's web front: the Echo server, the permission
// table, the middleware that enforces it, the handlers and the one error handler.
//
// Every route is registered from the permission table in routes.go, which
// says for each method and path the least role allowed to call it.
package handlers

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/styrmin/styrmin/auth"
)

// Deps is everything the handlers need; cmd/styrmin builds it.
type Deps struct {
	// Logger receives request logs and internal errors.
	Logger *slog.Logger
	// Sessions reads and writes the session cookie.
	Sessions *auth.Sessions
	// Users stores users and checks their passwords.
	Users UserStore
	// Ready lists what /readyz checks: the database, the cluster, ...
	Ready []ReadyCheck
	// Drivers is the driver catalogue (catalog.Catalog).
	Drivers DriverCatalog
	// Deployments installs, changes and reads deployments and their tasks
	// (deployment.Service); handlers only ever go through it.
	Deployments Deployments
	// SimulatedCluster is set when the cluster is the local development one
	// (kube.Client.Simulated): deployment pages say its pods are simulated.
	SimulatedCluster bool
}

// UserStore is what the sign-in, session and users pages need from auth.Users.
type UserStore interface {
	userGetter
	signer
	userAdmin
}

var _ UserStore = (*auth.Users)(nil)

// ReadyCheck is one thing the server needs to serve requests, checked by /readyz.
type ReadyCheck struct {
	// Name identifies the check in /readyz output, e.g. "database".
	Name string
	// Check returns nil when the dependency answers.
	Check func(context.Context) error
	// Describe, when set, is used instead of Check: it returns what /readyz
	// shows after "ok: " (e.g. the cluster's server and version), or an error.
	Describe func(context.Context) (string, error)
}

// run runs the check and returns what /readyz shows for it when it passes.
func (c ReadyCheck) run(ctx context.Context) (string, error) {
	if c.Describe != nil {
		description, err := c.Describe(ctx)
		if err != nil {
			return "", err
		}
		return "ok: " + description, nil
	}
	if err := c.Check(ctx); err != nil {
		return "", err
	}
	return "ok", nil
}

// New returns the Echo server with every route of the permission table.
func New(d Deps) *echo.Echo {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	// Client addresses come from the connection, never from headers a client
	// can forge: sign-in throttling counts failures per address.
	e.IPExtractor = echo.ExtractIPDirect()
	e.HTTPErrorHandler = errorHandler(d.Logger)
	table := routes(d)
	bare := map[string]bool{}
	for _, r := range table {
		if r.bare {
			bare[r.path] = true
		}
	}
	// The body limit comes before anything reads a form (the CSRF check does),
	// so an oversized upload is refused before it is read; 1 MiB is for the
	// multipart envelope around the largest bundle archive.
	bodyLimit := middleware.BodyLimit(fmt.Sprintf("%dM", maxUploadMiB+1))
	e.Use(logRequests(d.Logger), recoverPanics(d.Logger), securityHeaders, bodyLimit, loadSession(d.Sessions, d.Users, bare, d.Logger))
	for _, r := range table {
		if r.bare {
			e.Add(r.method, r.path, r.handler)
		} else {
			e.Add(r.method, r.path, r.handler, requireRole(r.least), checkCSRF)
		}
	}
	return e
}
