// Package api is the REST API under /api/v1: the operations of
// api/openapi.yaml (oapi-codegen's strict server interface), JSON in and
// out, errors as RFC 9457 problem details.
package api

import (
	"context"
	"errors"
	"fmt"
	"github.com/styrmin/styrmin/teams"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/permissions"
)

// Prefix is where the REST API lives; api/openapi.yaml describes it.
const Prefix = "/api/v1"

// MaxRequest bounds an API request's body.
const MaxRequest = 1 << 20

// Deployments is what the API's operations need from deployment.Service.
type Deployments interface {
	Get(ctx context.Context, name string) (*deployment.Deployment, error)
	List(ctx context.Context, o deployment.ListOptions) (deployment.ListPage, error)
	View(ctx context.Context, name string, o deployment.ViewOptions) (*deployment.View, error)
	Drift(ctx context.Context, name string) (*deployment.Drift, error)
	AcceptDrift(ctx context.Context, name, by string) (*deployment.Drift, error)
	Tasks(ctx context.Context, deploymentID, before int64, pageSize int) ([]deployment.Task, int64, error)
	Task(ctx context.Context, deployment string, id int64) (*deployment.Task, error)
	TaskList(ctx context.Context, f deployment.TaskFilter) (*deployment.TaskList, error)
	TaskByID(ctx context.Context, id int64) (*deployment.NamedTask, error)
	InstallForm(ctx context.Context, driver, version string) (*deployment.Form, error)
	Queue(ctx context.Context, op deployment.Operation) (*deployment.Queued, error)
	Review(ctx context.Context, op *deployment.Upgrade) (*deployment.Review, error)
	CancelTask(ctx context.Context, name string, taskID int64, by string) error
	PodLog(ctx context.Context, req deployment.LogRequest) (*deployment.PodLog, error)
	Artefacts(ctx context.Context, name string) (*deployment.Artefacts, error)
}

var _ Deployments = (*deployment.Service)(nil)

// DriverCatalog is what the API reads from the driver catalogue.
type DriverCatalog interface {
	Listing(ctx context.Context) (catalog.Listing, error)
	VersionRefs(ctx context.Context, name string) ([]catalog.VersionRef, error)
	Get(ctx context.Context, name, version string) (*catalog.Version, error)
	Spec(ctx context.Context, name, version string) (catalog.Spec, error)
	Permissions(ctx context.Context, name, version string) (*catalog.Permissions, error)
	ApprovePermissions(ctx context.Context, name, version, by string, items *permissions.Set) (*catalog.Permissions, error)
	ImportArchive(ctx context.Context, r io.Reader, imp catalog.ArchiveImport) (catalog.Imported, error)
}

var _ DriverCatalog = (*catalog.Catalog)(nil)

// Users is what the API's user operations need from auth.Users.
type Users interface {
	List(ctx context.Context) ([]auth.User, error)
	Create(ctx context.Context, nu auth.NewUser) (auth.User, error)
	SetRole(ctx context.Context, id int64, role auth.Role) (auth.User, error)
	SetDisabled(ctx context.Context, id int64, disabled bool) (auth.User, error)
	SetPassword(ctx context.Context, id int64, password string, tokens auth.APITokensOnReset) (auth.User, error)
	SignIn(ctx context.Context, username, password, address string) (auth.User, error)
}

var _ Users = (*auth.Users)(nil)

// Server implements the operations of api/openapi.yaml.
type Server struct {
	// Deployments installs, changes and reads deployments (deployment.Service).
	Deployments Deployments
	// Drivers is the driver catalogue (catalog.Catalog).
	Drivers DriverCatalog
	// Users stores the users that admins manage (auth.Users).
	Users Users
	// APITokens stores personal API tokens.
	APITokens *auth.APITokens
	// Namespaces reads and sets the namespace policy (deployment.Service).
	Namespaces NamespacePolicies
	// Webhooks keeps the webhooks that hear of tasks (webhooks.Store).
	Webhooks Webhooks
	// Audit reads the audit log (audit.Store).
	Audit AuditLog
	// Schedules keeps the schedules of manual actions (schedule.Service).
	Schedules Schedules
	// Sources keeps the catalogue sources (source.Service).
	Sources Sources
	// Teams says which teams' deployments a user sees.
	Teams *teams.Store
}

var _ oapi.StrictServerInterface = (*Server)(nil)

// Handlers returns the generated handler of each operation of s, by
// "METHOD path" (the path with Prefix and Echo's :params).
func Handlers(s *Server) map[string]echo.HandlerFunc {
	set := handlerSet{}
	oapi.RegisterHandlersWithBaseURL(set, oapi.NewStrictHandler(s, nil), Prefix)
	return set
}

// handlerSet collects the generated handlers by "METHOD path"; it is the
// oapi.EchoRouter the generated code registers itself on.
type handlerSet map[string]echo.HandlerFunc

func (s handlerSet) add(method, path string, h echo.HandlerFunc) *echo.Route {
	s[method+" "+path] = h
	return &echo.Route{Method: method, Path: path}
}

func (s handlerSet) CONNECT(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodConnect, p, h)
}
func (s handlerSet) DELETE(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodDelete, p, h)
}
func (s handlerSet) GET(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodGet, p, h)
}
func (s handlerSet) HEAD(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodHead, p, h)
}
func (s handlerSet) OPTIONS(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodOptions, p, h)
}
func (s handlerSet) PATCH(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodPatch, p, h)
}
func (s handlerSet) POST(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodPost, p, h)
}
func (s handlerSet) PUT(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodPut, p, h)
}
func (s handlerSet) TRACE(p string, h echo.HandlerFunc, _ ...echo.MiddlewareFunc) *echo.Route {
	return s.add(http.MethodTrace, p, h)
}

// IsAPI reports whether the request is for the REST API, whose answers
// (errors included) are JSON.
func IsAPI(c echo.Context) bool {
	p := c.Request().URL.Path
	return p == Prefix || strings.HasPrefix(p, Prefix+"/")
}

// Document serves the API's OpenAPI document, as embedded in the generated
// code (docs/openapi.json is the same document).
func Document() echo.HandlerFunc {
	return func(c echo.Context) error {
		doc, err := oapi.DocumentJSON()
		if err != nil {
			return fmt.Errorf("api: %w", err)
		}
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
	}
}

// WriteError writes err as problem details (RFC 9457) with status and the
// user-facing message.
func WriteError(c echo.Context, status int, err error, message string) error {
	c.Response().Header().Set(echo.HeaderContentType, "application/problem+json")
	p := problem(status, err, message)
	if id := httpx.RequestID(c.Request().Context()); id != "" {
		p.RequestId = &id
	}
	return c.JSON(status, p)
}

// problem is an error as RFC 9457 problem details (oapi.Problem).
func problem(status int, err error, message string) oapi.Problem {
	p := oapi.Problem{
		Type:   "about:blank",
		Title:  httpx.Heading(status),
		Status: status,
		Detail: message,
		Code:   oapi.ProblemCode(httpx.Code(status, err)),
	}
	if fields := styrmin.ErrorFields(err); len(fields) > 0 {
		p.Fields = &fields
		p.Detail = httpx.WithFields(err, message)
	}
	var ps drivers.Problems
	if errors.As(err, &ps) {
		p.Problems = bundleProblems(ps)
	}
	return p
}

// bundleProblems are a driver bundle's contract problems as a problem's
// problems; a line or column of 0 (none) is left out.
func bundleProblems(ps drivers.Problems) *[]oapi.BundleProblem {
	out := make([]oapi.BundleProblem, len(ps))
	for i, p := range ps {
		out[i] = oapi.BundleProblem{File: p.File, Message: p.Message}
		if p.Line > 0 {
			out[i].Line = &p.Line
		}
		if p.Column > 0 {
			out[i].Column = &p.Column
		}
		if p.Field != "" {
			out[i].Field = &p.Field
		}
	}
	return &out
}
