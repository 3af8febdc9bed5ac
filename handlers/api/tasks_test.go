package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// failedHook is what a blocking hook action that failed in its Job left on its step.
type failedHook struct {
	stepID                       int64
	action, mode, err, job, tail string
	tailLines                    int
	deletedJobs                  []string
	logs                         []string
	linkedTaskID                 int64
}

// failHookStep records on task, as its runner and the execute_commands
// primitive do, a hook step whose action logged, replaced two ended Jobs,
// started a linked stop and failed in its Job; the task ends failed.
func failHookStep(t *testing.T, d handlerstest.DeployApp, deploymentName string, taskID int64) failedHook {
	t.Helper()
	ctx := context.Background()
	q := db.New(d.Pool)
	_, err := q.StartTask(ctx, db.StartTaskParams{Runner: "test", ID: taskID})
	require.NoError(t, err)
	h := failedHook{action: "migrate", mode: "blocking", job: "orders-action-7",
		tail: "applying 0042_index.sql\nERROR: relation \"orders\" does not exist", tailLines: 2,
		deletedJobs: []string{"orders-action-5", "orders-action-6"}, logs: []string{"connecting", "migrating"}}
	h.err = "Action migrate failed: the Job " + h.job + " failed"
	step, err := q.InsertStep(ctx, db.InsertStepParams{TaskID: taskID, Kind: deployment.StepHook, Title: "Migrate (pre-upgrade action migrate)"})
	require.NoError(t, err)
	h.stepID = step.ID
	for i, line := range h.logs {
		require.NoError(t, q.InsertStepLog(ctx, db.InsertStepLogParams{StepID: step.ID, Seq: int32(i + 1), Level: "INFO", Message: line}))
	}
	for _, job := range h.deletedJobs {
		require.NoError(t, q.AddStepDeletedJob(ctx, db.AddStepDeletedJobParams{ID: step.ID, Job: job}))
	}
	dep, err := d.Service.Get(ctx, deploymentName)
	require.NoError(t, err)
	linked, err := d.Service.Queue(ctx, deployment.Linked{Caller: &deployment.Caller{DeploymentID: dep.ID, TaskID: taskID, StepID: step.ID}, Op: &deployment.Stop{}})
	require.NoError(t, err)
	h.linkedTaskID = linked.TaskID
	tail, err := json.Marshal(deployment.JobDetail{Job: h.job, JobTail: h.tail, JobTailLines: h.tailLines})
	require.NoError(t, err)
	require.NoError(t, q.MergeStepDetail(ctx, db.MergeStepDetailParams{ID: step.ID, Patch: tail}))
	detail, err := json.Marshal(deployment.HookDetail{Action: h.action, Mode: h.mode, Error: h.err})
	require.NoError(t, err)
	require.NoError(t, q.EndStep(ctx, db.EndStepParams{ID: step.ID, Status: executor.StepFailed, Message: h.err, Detail: detail}))
	ended, err := q.FinishTask(ctx, db.FinishTaskParams{ID: taskID, Status: executor.TaskFailed, Message: h.err, Result: []byte("null")})
	require.NoError(t, err)
	require.Equal(t, executor.TaskFailed, ended.Status)
	return h
}

func TestAPIReaderReadsAFailedHookStepsErrorJobTailAndLinkedTask(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	install := d.Install(t, handlerstest.PgInstall("orders"))
	hook := failHookStep(t, d, "orders", install.TaskID)
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	rec := d.Call(t, token, http.MethodGet, "/api/v1/tasks/"+strconv.FormatInt(install.TaskID, 10), nil)
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)
	task := decoded[api.Task](t, rec, http.StatusOK)
	require.Equal(t, install.TaskID, task.Id)
	require.Equal(t, "orders", task.Deployment)
	require.Equal(t, api.TaskKind(deployment.KindInstall), task.Kind)
	require.Equal(t, api.TaskStatus(executor.TaskFailed), task.Status)
	require.True(t, task.Ended)
	require.Equal(t, hook.err, task.Message)
	require.Nil(t, task.ParentStepId)
	require.Equal(t, "olga", task.By)
	require.Equal(t, "1.2.0", inputsOf[api.InstallInputs](t, task).DriverVersion)
	require.Len(t, task.Steps, 1)

	step := task.Steps[0]
	require.Equal(t, hook.stepID, step.Id)
	require.Equal(t, string(deployment.StepHook), step.Kind)
	require.Equal(t, string(executor.StepFailed), step.Status)
	require.Equal(t, &hook.action, step.Action)
	require.Equal(t, &hook.mode, step.Mode)
	require.Equal(t, &hook.err, step.Error)
	require.Equal(t, &hook.job, step.Job)
	require.Equal(t, &hook.tail, step.JobTail)
	require.Equal(t, &hook.tailLines, step.JobTailLines)
	require.Equal(t, &hook.deletedJobs[len(hook.deletedJobs)-1], step.DeletedJob, "the last Job it replaced")
	require.NotNil(t, step.Detail)
	require.Equal(t, []any{hook.deletedJobs[0], hook.deletedJobs[1]}, (*step.Detail)["deleted_jobs"], "detail keeps them all")
	require.NotContains(t, *step.Detail, "job_tail", "a field of its own is not repeated in detail")
	var logs []string
	for _, l := range step.Logs {
		logs = append(logs, l.Message)
	}
	require.Equal(t, hook.logs, logs)

	require.Len(t, step.Tasks, 1)
	linked := step.Tasks[0]
	require.Equal(t, hook.linkedTaskID, linked.Id)
	require.Equal(t, api.TaskKind(deployment.KindStop), linked.Kind)
	require.Equal(t, &hook.stepID, linked.ParentStepId)
	require.Equal(t, "orders", linked.Deployment)
	require.Equal(t, []api.Step{}, linked.Steps)

	direct := decoded[api.Task](t, d.Call(t, token, http.MethodGet, "/api/v1/tasks/"+strconv.FormatInt(hook.linkedTaskID, 10), nil), http.StatusOK)
	require.Equal(t, linked, direct, "a linked task reads by its id too")

	rec = d.Call(t, token, http.MethodGet, "/api/v1/tasks/999999", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, api.ProblemCode("not_found"), problemOf(t, rec).Code)
}

// taskIDs reads every page of a task list, limit at a time, and returns the
// ids in order with how many pages it took.
func taskIDs(t *testing.T, d handlerstest.DeployApp, token string, filter url.Values, limit int) (ids []int64, pages int) {
	t.Helper()
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	for k, v := range filter {
		q[k] = v
	}
	for {
		page := decoded[api.TaskPage](t, d.Call(t, token, http.MethodGet, "/api/v1/tasks?"+q.Encode(), nil), http.StatusOK)
		pages++
		require.LessOrEqual(t, len(page.Items), limit)
		for _, task := range page.Items {
			ids = append(ids, task.Id)
			require.Nil(t, task.ParentStepId, "linked tasks are under their step")
			if name := filter.Get("deployment"); name != "" {
				require.Equal(t, name, task.Deployment)
			}
			if status := filter.Get("status"); status != "" {
				require.Equal(t, api.TaskStatus(status), task.Status)
			}
			if kind := filter.Get("kind"); kind != "" {
				require.Equal(t, api.TaskKind(kind), task.Kind)
			}
		}
		if page.NextCursor == "" {
			return ids, pages
		}
		q.Set("cursor", page.NextCursor)
	}
}

func TestAPITasksComeNewestFirstAcrossDeploymentsWithFilters(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	ctx := context.Background()
	site := d.Install(t, handlerstest.HelloInstall("site"))
	orders := d.Install(t, handlerstest.PgInstall("orders"))
	stop, err := d.Service.Queue(ctx, &deployment.Stop{Name: "site", By: "olga"})
	require.NoError(t, err)
	start, err := d.Service.Queue(ctx, &deployment.Start{Name: "site", Components: []string{"web"}, By: "olga"})
	require.NoError(t, err)
	require.NoError(t, d.Service.CancelTask(ctx, "site", start.TaskID, "olga"))
	hook := failHookStep(t, d, "orders", orders.TaskID)
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	ids, pages := taskIDs(t, d, token, nil, 2)
	require.Equal(t, []int64{start.TaskID, stop.TaskID, orders.TaskID, site.TaskID}, ids, "newest first, linked tasks left out")
	require.Equal(t, 2, pages)
	require.NotContains(t, ids, hook.linkedTaskID)

	for _, tc := range []struct {
		filter url.Values
		want   []int64
	}{
		{url.Values{"deployment": {"site"}}, []int64{start.TaskID, stop.TaskID, site.TaskID}},
		{url.Values{"status": {string(executor.TaskCanceled)}}, []int64{start.TaskID}},
		{url.Values{"status": {string(executor.TaskFailed)}}, []int64{orders.TaskID}},
		{url.Values{"kind": {deployment.KindInstall}}, []int64{orders.TaskID, site.TaskID}},
		{url.Values{"deployment": {"site"}, "kind": {deployment.KindStop}, "status": {string(executor.TaskQueued)}}, []int64{stop.TaskID}},
		{url.Values{"deployment": {"orders"}, "kind": {deployment.KindStop}}, nil},
	} {
		ids, _ := taskIDs(t, d, token, tc.filter, 1)
		require.Equal(t, tc.want, ids, tc.filter.Encode())
	}

	rec := d.Call(t, token, http.MethodGet, "/api/v1/tasks?deployment=nope", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, api.ProblemCode("not_found"), problemOf(t, rec).Code)
}
