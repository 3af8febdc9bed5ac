package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/views"
)

// TestStepPropsShowAHookStepsDetail: a failed hook step shows its error,
// its failed Job's tail and message and the Jobs it deleted; a step of
// another kind shows none of them.
func TestStepPropsShowAHookStepsDetail(t *testing.T) {
	t.Parallel()
	hook := deployment.Step{Kind: deployment.StepHook, Hook: &deployment.HookDetail{
		Action: "migrate", Mode: "blocking", Error: "Action migrate failed: exit 1",
		JobDetail:   &deployment.JobDetail{Job: "site-job-2", JobTail: "line 1\nline 2", JobTailLines: 2, JobMessage: "exit code 1"},
		DeletedJobs: []string{"site-job-0", "site-job-1"},
	}}
	p := stepProps("site", hook)
	require.Equal(t, "Action migrate failed: exit 1", p.Error)
	require.Equal(t, "line 1\nline 2", p.JobTail)
	require.Equal(t, "exit code 1", p.JobMessage)
	require.Equal(t, "site-job-0, site-job-1", p.DeletedJob)

	noJob := stepProps("site", deployment.Step{Kind: deployment.StepHook, Hook: &deployment.HookDetail{Action: "migrate", Mode: "blocking"}})
	require.Empty(t, noJob.JobTail+noJob.JobMessage+noJob.DeletedJob+noJob.Error, "an action that ran no failed Job")

	wait := stepProps("site", deployment.Step{Kind: deployment.StepWait, Detail: map[string]any{"ready": 1.0, "replicas": 1.0}})
	require.Empty(t, wait.Error+wait.JobTail+wait.DeletedJob)
}

// TestBusyNamesTheHoldersKind: a busy deployment's badge names the kind of
// the running task that holds it, on the deployment's page and in the list,
// and reads "working…" (views.BusyElsewhere) when that task is not at hand.
func TestBusyNamesTheHoldersKind(t *testing.T) {
	t.Parallel()
	busy := &deployment.Deployment{Busy: true}
	queued := deployment.Task{Kind: deployment.KindStop, Status: executor.TaskQueued}
	running := deployment.Task{Kind: deployment.KindUpgrade, Status: executor.TaskRunning}
	require.Empty(t, busyKind(&deployment.Deployment{}, []deployment.Task{running}))
	require.Equal(t, deployment.KindUpgrade, busyKind(busy, []deployment.Task{queued, running}))
	require.Equal(t, views.BusyElsewhere, busyKind(busy, []deployment.Task{queued}))

	summary := deployment.Summary{Deployment: *busy, LastTask: deployment.TaskSummary{ID: 1, Kind: deployment.KindUpgrade, Status: executor.TaskRunning}}
	require.Equal(t, deployment.KindUpgrade, deploymentRow(summary).Busy)
	summary.LastTask.Status = executor.TaskQueued
	require.Equal(t, views.BusyElsewhere, deploymentRow(summary).Busy)
}
