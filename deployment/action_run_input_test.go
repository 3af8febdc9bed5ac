package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
)

// TestARunsInputIsItsActionsPromptsFromItsTasksInputs: an action's run
// starts from its task's typed inputs (a hook action's prompts by action, a
// manual action's own), with the task's sealed secret prompts opened and
// defaults filled in; a task whose inputs do not all read runs nothing.
func TestARunsInputIsItsActionsPromptsFromItsTasksInputs(t *testing.T) {
	t.Parallel()
	f, install, d := setupQueuedCache(t)
	ctx := context.Background()
	read := func(taskID int64, action string) map[string]any {
		t.Helper()
		in, err := f.Svc.ReadRunInput(ctx, &deployment.Caller{DeploymentID: d.ID, TaskID: taskID, Action: action})
		require.NoError(t, err)
		require.Contains(t, in.Files, "driver.styrmin.yml", "the bundle of the task's driver version")
		return in.Prompts
	}
	require.Equal(t, map[string]any{"keys": float64(5), "api_key": "k3y-s3cret"}, read(install.TaskID, "seed"))

	flush, err := f.Svc.Queue(ctx, &deployment.RunAction{Name: "cache", Action: "flush", Prompts: deployment.JSONInput{"confirm": "yes"}, By: "alice"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"confirm": "yes"}, read(flush.TaskID, "flush"))

	del, err := f.Svc.Queue(ctx, &deployment.Delete{Name: "cache", Confirm: "cache", Prompts: deployment.FormPrompts{"archive": {"token": "t0ken-s3cret"}}, By: "alice"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"bucket": "backups", "token": "t0ken-s3cret"}, read(del.TaskID, "archive"))

	odd := deploymenttest.InsertTask(t, f.Pool, d.ID, deployment.KindInstall, `{"driver_version": "1.5.0", "prompts": "seed"}`)
	_, err = f.Svc.ReadRunInput(ctx, &deployment.Caller{DeploymentID: d.ID, TaskID: odd, Action: "seed"})
	require.ErrorContains(t, err, "The stored install inputs could not all be read: prompts holds a JSON string.")
}
