package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/api/actionstest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers"
)

// These tests hold the server to api/actions.yaml through handlers.New and
// the routes it registers, so that they do not depend on where in handlers
// the primitives live.

// actionsDocPath is where the server serves the primitives' document.
const actionsDocPath = "/api/action/v1/openapi.json"

// primitives answers each action primitive with what a test set; a token
// other than "sta_live" is refused, as the service refuses an unknown one.
type primitives struct {
	run        *deployment.RunInput
	deployment *deployment.ActionDeployment
	taskID     int64
	task       *deployment.Task
	job        *deployment.CommandsResult
	err        error
}

func (p *primitives) Authenticate(ctx context.Context, token string) (*deployment.Caller, error) {
	if token != "sta_live" {
		return nil, styrmin.Errorf(styrmin.EUNAUTHORIZED, "This action token is unknown, or its run has ended.")
	}
	return &deployment.Caller{DeploymentID: 1, TaskID: 2, StepID: 3, Action: "backup"}, nil
}

func (p *primitives) ReadDeployment(ctx context.Context, c *deployment.Caller) (*deployment.ActionDeployment, error) {
	return p.deployment, p.err
}

func (p *primitives) ReadRunInput(ctx context.Context, c *deployment.Caller) (*deployment.RunInput, error) {
	return p.run, p.err
}

func (p *primitives) Queue(ctx context.Context, op deployment.Operation) (*deployment.Queued, error) {
	if p.err != nil {
		return nil, p.err
	}
	return &deployment.Queued{TaskID: p.taskID}, nil
}

func (p *primitives) LinkedTask(ctx context.Context, c *deployment.Caller, id int64) (*deployment.Task, error) {
	return p.task, p.err
}

func (p *primitives) ExecuteCommands(ctx context.Context, c *deployment.Caller, req deployment.CommandsRequest) (*deployment.CommandsResult, error) {
	return p.job, p.err
}

// server is the app's router with p behind the primitives.
func server(p *primitives) *echo.Echo {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if p == nil {
		return handlers.New(handlers.Deps{Logger: logger})
	}
	return handlers.New(handlers.Deps{Logger: logger, Primitives: p})
}

// actionsDoc loads api/actions.yaml.
func actionsDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := api.ActionsDocument()
	require.NoError(t, err)
	require.Len(t, doc.Servers, 1)
	return doc
}

// documentedOperations are "METHOD path" of every operation of doc, its path
// in Echo's form (/api/action/v1/tasks/:id).
func documentedOperations(doc *openapi3.T) []string {
	var ops []string
	for path, item := range doc.Paths.Map() {
		echoPath := doc.Servers[0].URL + path
		for _, p := range strings.Split(path, "/") {
			if strings.HasPrefix(p, "{") {
				echoPath = strings.Replace(echoPath, p, ":"+strings.Trim(p, "{}"), 1)
			}
		}
		for method := range item.Operations() {
			ops = append(ops, method+" "+echoPath)
		}
	}
	slices.Sort(ops)
	return ops
}

// TestEveryPrimitiveIsInTheActionsDocument: the routes the server has under
// the primitives' prefix (its document aside; HEAD stands for GET) are the
// operations of api/actions.yaml, with the same methods and paths, and each
// takes an action token: without one, it answers 401 with {"error"}.
func TestEveryPrimitiveIsInTheActionsDocument(t *testing.T) {
	t.Parallel()
	doc := actionsDoc(t)
	e := server(&primitives{})
	prefix := doc.Servers[0].URL + "/"
	var served []string
	for _, r := range e.Routes() {
		if !strings.HasPrefix(r.Path, prefix) || r.Path == actionsDocPath || r.Method == http.MethodHead {
			continue
		}
		served = append(served, r.Method+" "+r.Path)
	}
	slices.Sort(served)
	require.Equal(t, documentedOperations(doc), served, "the primitives the server has (routes.go) and those api/actions.yaml describes")

	for _, op := range served {
		method, path, _ := strings.Cut(op, " ")
		rec := callPrimitive(t, e, "", method, strings.ReplaceAll(path, ":id", "12"), "")
		require.Equal(t, http.StatusUnauthorized, rec.Code, "%s takes an action token", op)
	}
}

// TestTheServerServesTheActionsDocument: GET /api/action/v1/openapi.json,
// without any token, is api/actions.yaml as JSON.
func TestTheServerServesTheActionsDocument(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	server(nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, actionsDocPath, nil))
	require.Equal(t, http.StatusOK, rec.Code)
	want, err := api.ActionsDocumentJSON()
	require.NoError(t, err)
	require.JSONEq(t, string(want), rec.Body.String())
	served, err := openapi3.NewLoader().LoadFromData(rec.Body.Bytes())
	require.NoError(t, err)
	require.Equal(t, documentedOperations(actionsDoc(t)), documentedOperations(served))
}

// TestThePrimitivesAnswerAsTheActionsDocumentSays calls each primitive as
// an action would (each request is checked against the document too) and
// checks its answer, errors included, against the document: status, media
// type and body.
func TestThePrimitivesAnswerAsTheActionsDocumentSays(t *testing.T) {
	t.Parallel()
	deployed := &deployment.ActionDeployment{Name: "shop-db", Namespace: "shop", Release: "shop-db", Driver: "postgresql",
		DriverVersion: "1.2.0", AppVersion: "16.4.0", Parameters: map[string]any{"database": "app", "replicas": 1.0},
		Components: []deployment.ActionComponentState{{Name: "primary", Title: "Primary", Stopped: true}}}
	invalid := &styrmin.Error{Code: styrmin.EINVALID, Message: deployment.InvalidFields, Fields: map[string]string{"prompt.backup.label": "Use letters."}}
	for _, c := range []struct {
		name, method, path, body string
		p                        *primitives
		token                    string
		status                   int
		// unchecked: the request is one the document does not allow; only the answer is checked.
		unchecked bool
	}{
		{name: "run", method: "GET", path: "run", p: &primitives{run: &deployment.RunInput{Files: map[string][]byte{"actions/backup.py": []byte("def run(): pass\n")}, Prompts: map[string]any{"label": "nightly"}}}, status: 200},
		{name: "run without prompts", method: "GET", path: "run", p: &primitives{run: &deployment.RunInput{Files: map[string][]byte{}, Prompts: map[string]any{}}}, status: 200},
		{name: "deployment", method: "GET", path: "deployment", p: &primitives{deployment: deployed}, status: 200},
		{name: "deployment without parameters or components", method: "GET", path: "deployment", p: &primitives{deployment: &deployment.ActionDeployment{Name: "bare"}}, status: 200},
		{name: "stop", method: "POST", path: "tasks/stop", body: `{"components": ["primary"]}`, p: &primitives{taskID: 12}, status: 202},
		{name: "start, empty body", method: "POST", path: "tasks/start", p: &primitives{taskID: 13}, status: 202},
		{name: "stop, unknown component", method: "POST", path: "tasks/stop", body: `{"components": ["nope"]}`, p: &primitives{err: styrmin.Errorf(styrmin.EINVALID, "Deployment shop-db has no component %q.", "nope")}, status: 400},
		{name: "stop, unknown field", method: "POST", path: "tasks/stop", body: `{"names": ["primary"]}`, p: &primitives{}, status: 400, unchecked: true},
		{name: "upgrade", method: "POST", path: "tasks/upgrade", body: `{"version": "16.5.0", "prompts": {"backup": {"label": "nightly", "keep": 3, "verify": true}}}`, p: &primitives{taskID: 14}, status: 202},
		{name: "upgrade, bad prompt", method: "POST", path: "tasks/upgrade", body: `{"version": "16.5.0", "prompts": {"backup": {"label": "no way"}}}`, p: &primitives{err: invalid}, status: 400},
		{name: "upgrade from an upgrade", method: "POST", path: "tasks/upgrade", body: `{"version": "16.5.0"}`, p: &primitives{err: styrmin.Errorf(styrmin.ECONFLICT, "An action of an upgrade cannot start another upgrade.")}, status: 409},
		{name: "task running", method: "GET", path: "tasks/12", p: &primitives{task: &deployment.Task{ID: 12, Kind: deployment.KindStop, Status: executor.TaskRunning}}, status: 200},
		{name: "task ended", method: "GET", path: "tasks/12", p: &primitives{task: &deployment.Task{ID: 12, Kind: deployment.KindUpgrade, Status: executor.TaskFailed, Message: "Helm failed.", Result: json.RawMessage(`{"hooks": []}`)}}, status: 200},
		{name: "task of another step", method: "GET", path: "tasks/99", p: &primitives{err: styrmin.Errorf(styrmin.ENOTFOUND, "This action started no task 99.")}, status: 404},
		{name: "task id not a number", method: "GET", path: "tasks/twelve", p: &primitives{}, status: 404, unchecked: true},
		{name: "job succeeded", method: "POST", path: "jobs", body: `{"commands": ["true"], "image": "busybox", "env": {"A": "1"}, "secret_env": {"PGPASSWORD": "superuser_password"}, "timeout": 60}`, p: &primitives{job: &deployment.CommandsResult{Job: "shop-db-job", Succeeded: true, DeletedJob: "shop-db-job"}}, status: 200},
		{name: "job failed", method: "POST", path: "jobs", body: `{"commands": ["false"], "image": "busybox", "timeout": 60}`, p: &primitives{job: &deployment.CommandsResult{Job: "shop-db-job", Message: "The Job failed: exit code 1.", TailLines: 3}}, status: 200},
		{name: "job still running", method: "POST", path: "jobs", body: `{"commands": ["true"], "image": "busybox", "timeout": 60}`, p: &primitives{err: styrmin.Errorf(styrmin.ECONFLICT, "The Job shop-db-job is still running.")}, status: 409},
		{name: "no cluster", method: "POST", path: "jobs", body: `{"commands": ["true"], "image": "busybox", "timeout": 60}`, p: &primitives{err: styrmin.Errorf(styrmin.EUNAVAILABLE, "The cluster does not answer.")}, status: 503},
		{name: "internal error", method: "GET", path: "deployment", p: &primitives{err: errors.New("boom")}, status: 500},
		{name: "unknown token", method: "GET", path: "deployment", p: &primitives{}, token: "sta_revoked", status: 401},
		{name: "no deployments on this server", method: "GET", path: "deployment", status: 503},
	} {
		t.Run(c.name, func(t *testing.T) {
			token := c.token
			if token == "" {
				token = "sta_live"
			}
			target := "/api/action/v1/" + c.path
			rec := callPrimitive(t, server(c.p), token, c.method, target, c.body)
			require.Equal(t, c.status, rec.Code, rec.Body.String())
			if c.unchecked {
				actionstest.CheckAnswer(t, c.method, target, c.body, rec)
			} else {
				actionstest.Check(t, c.method, target, c.body, rec)
			}
		})
	}
}

// callPrimitive sends a request to a primitive, with an action token when token is not "".
func callPrimitive(t *testing.T, e *echo.Echo, token, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	}
	if token != "" {
		req.Header.Set(echo.HeaderAuthorization, "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}
