package api

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// TestAPIHookStepShowsEachDetailOnce: a hook step's detail, as its runner
// records it (deployment.HookDetail), shows the action, mode, error and
// failed Job as fields of their own and keeps the rest, and only the rest,
// in detail.
func TestAPIHookStepShowsEachDetailOnce(t *testing.T) {
	t.Parallel()
	hook := deployment.HookDetail{Action: "migrate", Mode: "blocking", Error: "Action migrate failed.",
		Result: json.RawMessage(`{"applied":2}`), DeletedJobs: []string{"orders-action-5", "orders-action-6"},
		JobDetail: &deployment.JobDetail{Job: "orders-action-7", JobTail: "ERROR", JobTailLines: 1, JobMessage: "BackoffLimitExceeded"}}
	raw, err := json.Marshal(hook)
	require.NoError(t, err)
	var detail map[string]any
	require.NoError(t, json.Unmarshal(raw, &detail))

	out, err := apiStepOf(&deployment.Step{Kind: deployment.StepHook, Status: executor.StepFailed, Detail: detail, Hook: &hook}, "orders")
	require.NoError(t, err)
	require.Equal(t, []*string{&hook.Action, &hook.Mode, &hook.Error, &hook.Job, &hook.JobTail, &hook.DeletedJobs[1]},
		[]*string{out.Action, out.Mode, out.Error, out.Job, out.JobTail, out.DeletedJob})
	require.Equal(t, &hook.JobTailLines, out.JobTailLines)
	require.NotNil(t, out.Detail)
	require.Equal(t, map[string]any{"result": detail["result"], "job_message": hook.JobMessage, "deleted_jobs": detail["deleted_jobs"]}, *out.Detail)

	helm, err := apiStepOf(&deployment.Step{Kind: deployment.StepHelm, Status: executor.StepSucceeded, Detail: map[string]any{"revision": 2.0}}, "orders")
	require.NoError(t, err)
	require.Equal(t, &map[string]any{"revision": 2.0}, helm.Detail, "another kind's detail stays whole")
}
