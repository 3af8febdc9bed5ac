package runner_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
)

// stoppingActions stop the components through a linked task before the
// upgrade's Helm step (one blocking action that then fails, or one
// best-effort action) and before a delete's.
const stoppingActions = `
- {name: stop-then-fail, hook: pre-upgrade, mode: blocking, function: "actions:stop_then_fail", timeout: 2m}
- {name: stop-and-go-on, hook: pre-delete, mode: best-effort, function: "actions:stop_and_go_on", timeout: 2m}
`

const stoppingActionsPy = `
import styrmin


def stop_then_fail():
    try:
        styrmin.stop_components()
    except styrmin.TaskFailed as err:
        print("the stop failed:", err)
    raise RuntimeError("cannot go on")


def stop_and_go_on():
    try:
        styrmin.stop_components()
    except styrmin.TaskFailed as err:
        print("the stop failed:", err)
`

// setupDeadCluster returns a service whose cluster does not answer, with an
// executor working its tasks and driver actions enabled: its tasks fail at
// their first call to the cluster.
func setupDeadCluster(t *testing.T) deploymenttest.Fixture {
	t.Helper()
	f := deploymenttest.NewFixture(t, apptest.Options{Cluster: deploymenttest.DeadCluster(t), Work: true, Actions: true})
	f.Env.Start(t)
	return f
}

// linkedOf returns the linked tasks a task's result lists.
func linkedOf(t *testing.T, task *deployment.Task) []deployment.LinkedResult {
	t.Helper()
	var result struct {
		Linked []deployment.LinkedResult `json:"linked"`
	}
	require.NotEmpty(t, task.Result, "task %d (%s) has no result", task.ID, task.Kind)
	require.NoError(t, json.Unmarshal(task.Result, &result))
	return result.Linked
}

// TestAFailedTasksResultIncludesItsLinkedTasks fails an upgrade at its
// blocking pre-upgrade action and a delete at its Helm step, each after an
// action started a linked stop task: the failed task's result lists it.
func TestAFailedTasksResultIncludesItsLinkedTasks(t *testing.T) {
	t.Parallel()
	f := setupDeadCluster(t)
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", stoppingActions, stoppingActionsPy)
	req := deploymenttest.HelloWeb("site")
	req.DriverVersion = "1.5.0"
	install := deploymenttest.Queued(t)(f.Svc.Queue(ctx, req))
	require.Equal(t, executor.TaskFailed, f.WaitEnded(t, "site", install.TaskID).Status, "the cluster does not answer")

	review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: "site", Parameters: deployment.FormInput{"replicas": "3"}, By: "alice"})
	require.NoError(t, err)
	upgrade := f.WaitEnded(t, "site", deploymenttest.Queued(t)(f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})).TaskID)
	require.Equal(t, executor.TaskFailed, upgrade.Status)
	require.Contains(t, upgrade.Message, "Action stop-then-fail failed: RuntimeError: cannot go on")
	requireOneStop(t, upgrade)

	del := f.WaitEnded(t, "site", deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: "site", Confirm: "site", By: "alice"})).TaskID)
	require.Equal(t, executor.TaskFailed, del.Status)
	require.Equal(t, deployment.StepHelm, del.Steps[len(del.Steps)-1].Kind, "the delete failed at its Helm step: %s", del.Message)
	requireOneStop(t, del)
}

// requireOneStop requires a task's result to list the one stop task its
// action started, with its status.
func requireOneStop(t *testing.T, task *deployment.Task) {
	t.Helper()
	linked := linkedOf(t, task)
	require.Len(t, linked, 1)
	require.Equal(t, deployment.KindStop, linked[0].Kind)
	require.Equal(t, executor.TaskFailed, linked[0].Status, "the stop failed too: the cluster does not answer")
}
