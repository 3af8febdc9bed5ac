package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
)

// ActionPrimitives is what the primitive endpoints need from the deployment
// service (*deployment.Service implements it).
type ActionPrimitives interface {
	Authenticate(ctx context.Context, token string) (*deployment.Caller, error)
	ReadDeployment(ctx context.Context, c *deployment.Caller) (*deployment.ActionDeployment, error)
	StartLinked(ctx context.Context, c *deployment.Caller, req deployment.LinkedRequest) (int64, error)
	LinkedTask(ctx context.Context, c *deployment.Caller, id int64) (*deployment.Task, error)
	RunJob(ctx context.Context, c *deployment.Caller, req deployment.JobRequest) (*deployment.JobResult, error)
}

var _ ActionPrimitives = (*deployment.Service)(nil)

// actionAPIPrefix is where the primitive endpoints live (docs/actions.md).
const actionAPIPrefix = "/api/action/v1/"

// maxActionRequest bounds a primitive's request body.
const maxActionRequest = 1 << 20

// JobAnswerGrace is how long POST jobs may take once the deadline of its Job's
// waits (kube.ActionJobCallLimit) has passed: telling the Job to stop,
// recording on the hook step and writing the answer.
const JobAnswerGrace = kube.ActionJobStopGrace + 20*time.Second

// JobCallLimit is the longest a POST jobs call for a Job of this timeout
// lasts. The styrmin Python package's execute_commands waits a minute more
// for its answer (JOB_CALL_MARGIN, checked by a test), so it never gives up
// before the server does.
func JobCallLimit(timeout time.Duration) time.Duration {
	return kube.ActionJobCallLimit(timeout) + JobAnswerGrace
}

// actionRoutes are the primitive endpoints: they answer JSON, take only an
// action token (never a session), and act on that token's deployment only.
func actionRoutes(p ActionPrimitives, logger *slog.Logger) []route {
	h := func(fn func(c echo.Context, caller *deployment.Caller) (int, any, error)) echo.HandlerFunc {
		return actionHandler(p, logger, fn)
	}
	r := func(method, path string, handler echo.HandlerFunc) route {
		return route{method: method, path: actionAPIPrefix + path, least: auth.Anonymous, handler: handler, actionToken: true}
	}
	return []route{
		r(http.MethodGet, "deployment", h(func(c echo.Context, caller *deployment.Caller) (int, any, error) {
			d, err := p.ReadDeployment(c.Request().Context(), caller)
			return http.StatusOK, d, err
		})),
		r(http.MethodPost, "tasks/stop", h(linkedTask(p, deployment.KindStop))),
		r(http.MethodPost, "tasks/start", h(linkedTask(p, deployment.KindStart))),
		r(http.MethodPost, "tasks/upgrade", h(linkedTask(p, deployment.KindUpgrade))),
		r(http.MethodGet, "tasks/:id", h(func(c echo.Context, caller *deployment.Caller) (int, any, error) {
			id, err := strconv.ParseInt(c.Param("id"), 10, 64)
			if err != nil {
				return 0, nil, styrmin.Errorf(styrmin.ENOTFOUND, "There is no task %q.", c.Param("id"))
			}
			t, err := p.LinkedTask(c.Request().Context(), caller, id)
			if err != nil {
				return 0, nil, err
			}
			return http.StatusOK, map[string]any{"id": t.ID, "kind": t.Kind, "status": t.Status, "message": t.Message, "result": t.Result}, nil
		})),
		r(http.MethodPost, "jobs", h(func(c echo.Context, caller *deployment.Caller) (int, any, error) {
			var req deployment.JobRequest
			if err := decodeJSON(c, &req); err != nil {
				return 0, nil, err
			}
			// The call lasts as long as the Job: lift this response's write
			// deadline, and bound the server's waits.
			timeout := time.Duration(max(req.Timeout, 0)) * time.Second
			if err := http.NewResponseController(c.Response().Writer).SetWriteDeadline(time.Now().Add(JobCallLimit(timeout))); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return 0, nil, err
			}
			ctx, cancel := context.WithTimeout(c.Request().Context(), kube.ActionJobCallLimit(timeout))
			defer cancel()
			res, err := p.RunJob(ctx, caller, req)
			return http.StatusOK, res, err
		})),
	}
}

// linkedTask is the handler body of the stop, start and upgrade primitives.
func linkedTask(p ActionPrimitives, kind string) func(c echo.Context, caller *deployment.Caller) (int, any, error) {
	return func(c echo.Context, caller *deployment.Caller) (int, any, error) {
		var req struct {
			Components []string                  `json:"components"`
			Version    string                    `json:"version"`
			Prompts    map[string]map[string]any `json:"prompts"`
		}
		if err := decodeJSON(c, &req); err != nil {
			return 0, nil, err
		}
		id, err := p.StartLinked(c.Request().Context(), caller, deployment.LinkedRequest{
			Kind: kind, Components: req.Components, Version: req.Version, Prompts: req.Prompts,
		})
		return http.StatusAccepted, map[string]int64{"task_id": id}, err
	}
}

// actionHandler authenticates the action token, runs fn and writes its
// answer or error as JSON ({"error": message} with the error's status).
func actionHandler(p ActionPrimitives, logger *slog.Logger, fn func(c echo.Context, caller *deployment.Caller) (int, any, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		token, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
		var caller *deployment.Caller
		var err error = styrmin.Errorf(styrmin.EUNAUTHORIZED, "An action token is needed: Authorization: Bearer <token>.")
		if p == nil {
			err = styrmin.Errorf(styrmin.EUNAVAILABLE, "This server runs no deployments.")
		} else if ok {
			caller, err = p.Authenticate(c.Request().Context(), strings.TrimSpace(token))
		}
		status, body := 0, any(nil)
		if err == nil {
			status, body, err = fn(c, caller)
		}
		if err != nil {
			status, msg := describe(err)
			if status == http.StatusInternalServerError {
				logger.Error("action primitive", "path", c.Path(), "error", err)
			}
			return c.JSON(status, map[string]string{"error": withFields(err, msg)})
		}
		return c.JSON(status, body)
	}
}

// decodeJSON reads a primitive's JSON body into v; an empty body leaves v as it is.
func decodeJSON(c echo.Context, v any) error {
	body := http.MaxBytesReader(c.Response().Writer, c.Request().Body, maxActionRequest)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return styrmin.Errorf(styrmin.EINVALID, "The request body is not the JSON this call takes: %v.", err)
	}
	return nil
}
