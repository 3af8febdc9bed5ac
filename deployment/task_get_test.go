package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
)

// TestTasksAttachLogsAndLinkedTasksToTheirSteps: a page of tasks carries
// every step, and only the steps that logged or started tasks have log lines
// or tasks under them, at every level of nesting.
func TestTasksAttachLogsAndLinkedTasksToTheirSteps(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	install, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb("site"))
	require.NoError(t, err)
	stop, err := f.Svc.Queue(ctx, &deployment.Stop{Name: "site", By: "alice"})
	require.NoError(t, err)
	d := deploymenttest.MustGet(t, f, "site")
	step := func(taskID int64, kind executor.StepKind, logs ...string) int64 {
		st, err := f.Q.InsertStep(ctx, db.InsertStepParams{TaskID: taskID, Kind: kind, Title: string(kind)})
		require.NoError(t, err)
		for i, line := range logs {
			require.NoError(t, f.Q.InsertStepLog(ctx, db.InsertStepLogParams{StepID: st.ID, Seq: int32(i + 1), Level: "INFO", Message: line}))
		}
		return st.ID
	}
	step(install.TaskID, deployment.StepRender)
	hook := step(install.TaskID, deployment.StepHook, "connecting", "migrating")
	step(install.TaskID, deployment.StepWait)
	step(stop.TaskID, deployment.StepComponent)
	linked, err := startLinked(ctx, f, &deployment.Caller{DeploymentID: d.ID, TaskID: install.TaskID, StepID: hook}, &deployment.Stop{})
	require.NoError(t, err)
	nestedHook := step(linked, deployment.StepHook, "stopping")

	tasks, next, err := f.Svc.Tasks(ctx, d.ID, 0, deployment.DefaultTaskPage)
	require.NoError(t, err)
	require.Zero(t, next)
	require.Len(t, tasks, 2, "the linked task is under its step, not on the page")
	require.Equal(t, stop.TaskID, tasks[0].ID)
	require.Len(t, tasks[0].Steps, 1)
	require.Empty(t, tasks[0].Steps[0].Logs)
	require.Empty(t, tasks[0].Steps[0].Tasks)

	got := tasks[1]
	require.Equal(t, install.TaskID, got.ID)
	require.Equal(t, []executor.StepKind{deployment.StepRender, deployment.StepHook, deployment.StepWait}, []executor.StepKind{got.Steps[0].Kind, got.Steps[1].Kind, got.Steps[2].Kind})
	for _, i := range []int{0, 2} {
		require.Empty(t, got.Steps[i].Logs, "step %d logged nothing", i)
		require.Empty(t, got.Steps[i].Tasks, "step %d started nothing", i)
	}
	require.Equal(t, []string{"connecting", "migrating"}, messages(got.Steps[1].Logs))
	require.Len(t, got.Steps[1].Tasks, 1)
	nested := got.Steps[1].Tasks[0]
	require.Equal(t, linked, nested.ID)
	require.Len(t, nested.Steps, 1)
	require.Equal(t, nestedHook, nested.Steps[0].ID)
	require.Equal(t, []string{"stopping"}, messages(nested.Steps[0].Logs), "a nested task's steps have their log lines too")
}

// messages are the messages of log lines.
func messages(lines []deployment.LogLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Message
	}
	return out
}

// TestTasksWithStepsReadsTheStepsOfThePickedTasksOnly: the tasks not picked
// come without steps but say how many they have.
func TestTasksWithStepsReadsTheStepsOfThePickedTasksOnly(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	install, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb("site"))
	require.NoError(t, err)
	stop, err := f.Svc.Queue(ctx, &deployment.Stop{Name: "site", By: "alice"})
	require.NoError(t, err)
	for _, id := range []int64{install.TaskID, stop.TaskID, install.TaskID} {
		_, err := f.Q.InsertStep(ctx, db.InsertStepParams{TaskID: id, Kind: deployment.StepRender, Title: "Render"})
		require.NoError(t, err)
	}
	d := deploymenttest.MustGet(t, f, "site")
	var seen []int
	tasks, _, err := f.Svc.TasksWithSteps(ctx, d.ID, 0, deployment.DefaultTaskPage, func(i int, task *deployment.Task) bool {
		seen = append(seen, i)
		return task.ID == install.TaskID
	})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1}, seen, "every task is offered, newest first")
	require.Equal(t, stop.TaskID, tasks[0].ID)
	require.Empty(t, tasks[0].Steps, "a task not picked has no steps")
	require.Equal(t, 1, tasks[0].StepCount, "but says how many")
	require.Len(t, tasks[1].Steps, 2)
	require.Equal(t, 2, tasks[1].StepCount)

	all, _, err := f.Svc.Tasks(ctx, d.ID, 0, deployment.DefaultTaskPage)
	require.NoError(t, err)
	require.Len(t, all[0].Steps, 1, "Tasks reads every task's steps")
	require.Equal(t, 1, all[0].StepCount)
}
