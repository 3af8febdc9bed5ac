package action_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/kube"
)

func TestAnActionsUpgradeGivesItsHookActionsTheirPrompts(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	install := d.Install(t, handlerstest.PgInstall("shop-db"))
	token := d.ActionToken(t, "shop-db", install.TaskID)

	status, answer := d.Primitive(t, token, "tasks/upgrade", `{"version": "16.6.0", "prompts": {"backup": {"label": "Before 16.6"}}}`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, answer["error"], "prompt.backup.label", "the refusal names the field, for the action's log")

	status, answer = d.Primitive(t, token, "tasks/upgrade", `{"version": "16.6.0", "prompts": {"backup": {"label": "before-16-6"}}}`)
	require.Equal(t, http.StatusAccepted, status, "%v", answer)
	task, err := d.Service.TaskByID(context.Background(), int64(answer["task_id"].(float64)))
	require.NoError(t, err)
	require.Equal(t, map[string]map[string]any{"backup": {"label": "before-16-6", "database": "app"}}, deploymenttest.Inputs[*deployment.UpgradeInputs](t, &task.Task).Prompts,
		"the given prompt and the other's default")
}

// TestTaskPrimitivesRefuseAsTheSDKSaysIt: the refusals that the SDK shows
// an action's author keep their words: prompts given to a stop, and an
// application version the driver does not support, said alone rather than
// as a list of fields.
func TestTaskPrimitivesRefuseAsTheSDKSaysIt(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	install := d.Install(t, handlerstest.PgInstall("shop-db"))
	token := d.ActionToken(t, "shop-db", install.TaskID)

	status, answer := d.Primitive(t, token, "tasks/stop", `{"prompts": {"backup": {"label": "x"}}}`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "Only an upgrade runs hook actions that take prompts; a stop takes none.", answer["error"])

	status, answer = d.Primitive(t, token, "tasks/upgrade", `{"version": "99.0.0"}`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "version 99.0.0 is not supported by driver postgresql 1.2.0, which supports "+pgSupported(t, d), answer["error"])
}

// pgSupported is the supported_versions of the bundled PostgreSQL driver 1.2.0.
func pgSupported(t *testing.T, d handlerstest.DeployApp) string {
	t.Helper()
	v, err := d.Deps.Drivers.Get(context.Background(), "postgresql", "1.2.0")
	require.NoError(t, err)
	return v.Driver.Spec.SupportedVersions
}

// deadlinePrimitives answers POST jobs at once, noting the deadline ExecuteCommands was given.
type deadlinePrimitives struct {
	action.Primitives
	deadline time.Time
}

func (p *deadlinePrimitives) Authenticate(ctx context.Context, token string) (*deployment.Caller, error) {
	return &deployment.Caller{}, nil
}

func (p *deadlinePrimitives) ExecuteCommands(ctx context.Context, c *deployment.Caller, req deployment.CommandsRequest) (*deployment.CommandsResult, error) {
	p.deadline, _ = ctx.Deadline()
	return &deployment.CommandsResult{Job: "site-job", Succeeded: true}, nil
}

func TestAJobsCallIsBoundedByItsTimeoutAndTheServersWaits(t *testing.T) {
	t.Parallel()
	p := &deadlinePrimitives{}
	e := handlers.New(handlers.Deps{Logger: slog.Default(), Primitives: p})
	req := httptest.NewRequest(http.MethodPost, action.Prefix+"jobs", strings.NewReader(`{"commands": ["true"], "image": "busybox", "timeout": 600}`))
	req.Header.Set("Authorization", "Bearer sta_test")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	before := time.Now()
	e.ServeHTTP(rec, req)
	after := time.Now()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	limit := kube.ActionJobCallLimit(600 * time.Second)
	require.False(t, p.deadline.Before(before.Add(limit)), "ExecuteCommands may wait for everything the Job's waits take")
	require.False(t, p.deadline.After(after.Add(limit)), "and no longer")
	require.Less(t, limit, action.CommandsCallLimit(600*time.Second), "the answer has time to be written")
}
