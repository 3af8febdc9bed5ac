// Package action is the action primitives: the calls a driver's Python
// actions make (docs/actions.md) with the action token of their step. They
// take and answer JSON, errors as {"error": message}, and act on that
// token's deployment only.
package action

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/kube"
)

// Primitives is what the primitive endpoints need from the deployment
// service (*deployment.Service implements it).
type Primitives interface {
	Authenticate(ctx context.Context, token string) (*deployment.Caller, error)
	ReadDeployment(ctx context.Context, c *deployment.Caller) (*deployment.ActionDeployment, error)
	ReadRunInput(ctx context.Context, c *deployment.Caller) (*deployment.RunInput, error)
	Queue(ctx context.Context, op deployment.Operation) (*deployment.Queued, error)
	LinkedTask(ctx context.Context, c *deployment.Caller, id int64) (*deployment.Task, error)
	ExecuteCommands(ctx context.Context, c *deployment.Caller, req deployment.CommandsRequest) (*deployment.CommandsResult, error)
}

var _ Primitives = (*deployment.Service)(nil)

// Prefix is where the primitive endpoints live (docs/actions.md).
const Prefix = "/api/action/v1/"

// maxRequest bounds a primitive's request body.
const maxRequest = 1 << 20

// CommandsAnswerGrace is how long POST jobs may take once the deadline of its Job's
// waits (kube.ActionJobCallLimit) has passed: telling the Job to stop,
// recording on the hook step and writing the answer.
const CommandsAnswerGrace = kube.ActionJobStopGrace + 20*time.Second

// CommandsCallLimit is the longest a POST jobs call for a Job of this timeout
// lasts. The styrmin Python package's execute_commands waits a minute more
// for its answer (JOB_CALL_MARGIN, checked by a test), so it never gives up
// before the server does.
func CommandsCallLimit(timeout time.Duration) time.Duration {
	return kube.ActionJobCallLimit(timeout) + CommandsAnswerGrace
}

// bodyFunc is a primitive's handler body: the status and answer for the action
// that calls (httpx.Caller), or an error.
type bodyFunc func(c echo.Context, caller *deployment.Caller) (int, any, error)

// DeploymentRead answers GET deployment: the caller's deployment.
func DeploymentRead(p Primitives) echo.HandlerFunc {
	return handle(func(c echo.Context, caller *deployment.Caller) (int, any, error) {
		d, err := p.ReadDeployment(c.Request().Context(), caller)
		return http.StatusOK, d, err
	})
}

// RunRead answers GET run: the caller's bundle and prompts, which an action
// run as a pod fetches before it starts.
func RunRead(p Primitives) echo.HandlerFunc {
	return handle(func(c echo.Context, caller *deployment.Caller) (int, any, error) {
		in, err := p.ReadRunInput(c.Request().Context(), caller)
		return http.StatusOK, in, err
	})
}

// TaskStart answers POST tasks/stop, tasks/start and tasks/upgrade: it
// queues a deployment.Linked operation of kind (deployment.KindStop,
// KindStart, KindUpgrade) on the caller's deployment.
func TaskStart(p Primitives, kind string) echo.HandlerFunc {
	return handle(func(c echo.Context, caller *deployment.Caller) (int, any, error) {
		var req taskRequest
		if err := decodeJSON(c, &req); err != nil {
			return 0, nil, err
		}
		op, err := req.operation(kind)
		if err != nil {
			return 0, nil, err
		}
		queued, err := p.Queue(c.Request().Context(), deployment.Linked{Caller: caller, Op: op})
		if err != nil {
			return 0, nil, appVersionAlone(err)
		}
		return http.StatusAccepted, map[string]int64{"task_id": queued.TaskID}, nil
	})
}

// taskRequest is the body of POST tasks/stop, tasks/start and tasks/upgrade.
type taskRequest struct {
	// Components are the components to stop or start (none: all of them).
	Components []string `json:"components"`
	// Version is the application version to upgrade to.
	Version string `json:"version"`
	// Prompts are the values of the upgrade's hook action prompts, by
	// action then prompt; a prompt left out takes its default.
	Prompts map[string]map[string]any `json:"prompts"`
}

// operation is the linked operation of kind the request asks for. Prompts
// are refused for a stop or a start: only an upgrade runs hook actions.
func (r taskRequest) operation(kind string) (deployment.LinkedOperation, error) {
	if kind != deployment.KindUpgrade && len(r.Prompts) > 0 {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Only an upgrade runs hook actions that take prompts; a %s takes none.", kind)
	}
	switch kind {
	case deployment.KindStop:
		return &deployment.Stop{Components: r.Components}, nil
	case deployment.KindStart:
		return &deployment.Start{Components: r.Components}, nil
	case deployment.KindUpgrade:
		return &deployment.Upgrade{AppVersion: r.Version, Prompts: deployment.JSONPrompts(r.Prompts)}, nil
	}
	return nil, styrmin.Errorf(styrmin.EINVALID, "An action cannot start a %s task.", kind)
}

// appVersionAlone is err, or, when err refuses the application version, an
// EINVALID error with that refusal's message alone, as the
// upgrade_deployment_version primitive has always said it (the SDK shows it).
func appVersionAlone(err error) error {
	var invalid *deployment.InvalidError
	if !errors.As(err, &invalid) {
		return err
	}
	for _, f := range invalid.Fields {
		if f.Field.Kind == deployment.FieldAppVersion {
			return styrmin.Errorf(styrmin.EINVALID, "%s", f.Message)
		}
	}
	return err
}

// TaskRead answers GET tasks/:id: a task the caller started.
func TaskRead(p Primitives) echo.HandlerFunc {
	return handle(func(c echo.Context, caller *deployment.Caller) (int, any, error) {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil {
			return 0, nil, styrmin.Errorf(styrmin.ENOTFOUND, "There is no task %q.", c.Param("id"))
		}
		t, err := p.LinkedTask(c.Request().Context(), caller, id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"id": t.ID, "kind": t.Kind, "status": t.Status, "message": t.Message, "result": t.Result}, nil
	})
}

// ExecuteCommands answers POST jobs: it runs commands in a Job and waits for it.
func ExecuteCommands(p Primitives) echo.HandlerFunc {
	return handle(func(c echo.Context, caller *deployment.Caller) (int, any, error) {
		var req deployment.CommandsRequest
		if err := decodeJSON(c, &req); err != nil {
			return 0, nil, err
		}
		// The call lasts as long as the Job: lift this response's write
		// deadline, and bound the server's waits.
		timeout := time.Duration(max(req.Timeout, 0)) * time.Second
		if err := http.NewResponseController(c.Response().Writer).SetWriteDeadline(time.Now().Add(CommandsCallLimit(timeout))); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return 0, nil, err
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), kube.ActionJobCallLimit(timeout))
		defer cancel()
		res, err := p.ExecuteCommands(ctx, caller, req)
		return http.StatusOK, res, err
	})
}

// handle runs fn for the caller that the action token's middleware found
// and writes its answer as JSON; its error goes to the server's one error
// handler, which answers it as WriteError does.
func handle(fn bodyFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		status, answer, err := fn(c, httpx.Caller(c))
		if err != nil {
			return err
		}
		return c.JSON(status, answer)
	}
}

// IsAction reports whether the request is for the action primitives, whose
// answers (errors included) are JSON.
func IsAction(c echo.Context) bool {
	return strings.HasPrefix(c.Request().URL.Path, Prefix)
}

// WriteError writes an error as a primitive's error answer: {"error":
// message} with its status (httpx.Describe), the fields of an invalid
// request listed in the message.
func WriteError(c echo.Context, status int, err error, message string) error {
	return c.JSON(status, map[string]string{"error": httpx.WithFields(err, message)})
}

// decodeJSON reads a primitive's JSON body into v; an empty body leaves v as it is.
func decodeJSON(c echo.Context, v any) error {
	body := http.MaxBytesReader(c.Response().Writer, c.Request().Body, maxRequest)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return styrmin.Errorf(styrmin.EINVALID, "The request body is not the JSON this call takes: %v.", err)
	}
	return nil
}
