package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
)

// TestTheTaskListIsAPageOfEveryDeploymentsTasks: the task list holds the
// top-level tasks of every deployment, newest first, a page at a time, each
// named by its deployment, with its typed inputs and, while it waits, its
// place in its own deployment's queue.
func TestTheTaskListIsAPageOfEveryDeploymentsTasks(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	queue := deploymenttest.Queued(t)
	siteInstall := queue(f.Svc.Queue(ctx, deploymenttest.HelloWeb("site")))
	stop := queue(f.Svc.Queue(ctx, &deployment.Stop{Name: "site", Components: []string{"web"}, By: "alice"}))
	cacheInstall := queue(f.Svc.Queue(ctx, deploymenttest.Redis("cache")))
	start := queue(f.Svc.Queue(ctx, &deployment.Start{Name: "site", By: "alice"}))

	type row struct {
		ID         int64
		Deployment string
		Kind       string
		Position   int
	}
	rows := func(list *deployment.TaskList) []row {
		out := make([]row, len(list.Tasks))
		for i, task := range list.Tasks {
			out[i] = row{task.ID, task.Deployment, task.Kind, task.QueuePosition}
			require.NotNil(t, task.Inputs)
		}
		return out
	}
	first, err := f.Svc.TaskList(ctx, deployment.TaskFilter{PageSize: 3})
	require.NoError(t, err)
	require.Equal(t, []row{
		{start.TaskID, "site", deployment.KindStart, 2},
		{cacheInstall.TaskID, "cache", deployment.KindInstall, 0},
		{stop.TaskID, "site", deployment.KindStop, 1},
	}, rows(first), "each queued task's place is in its own deployment's queue")
	require.Equal(t, &deployment.ComponentsInputs{Components: []string{"web"}}, first.Tasks[2].Inputs)
	require.Equal(t, stop.TaskID, first.Next)

	second, err := f.Svc.TaskList(ctx, deployment.TaskFilter{PageSize: 3, Before: first.Next})
	require.NoError(t, err)
	require.Equal(t, []row{{siteInstall.TaskID, "site", deployment.KindInstall, 0}}, rows(second))
	require.Zero(t, second.Next, "the last page")

	stops, err := f.Svc.TaskList(ctx, deployment.TaskFilter{Deployment: "site", Kind: deployment.KindStop})
	require.NoError(t, err)
	require.Equal(t, []row{{stop.TaskID, "site", deployment.KindStop, 1}}, rows(stops))

	_, err = f.Svc.TaskList(ctx, deployment.TaskFilter{Deployment: "nope"})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

// TestTheTaskListSumsUpStepsWithoutReadingThem: with SummaryOnly, a task
// comes without its steps but with what they add up to, the same as when
// they are read: their count, the warnings, and the first failure with its
// hook's error before its message.
func TestTheTaskListSumsUpStepsWithoutReadingThem(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	q := deploymenttest.Queued(t)(f.Svc.Queue(ctx, deploymenttest.HelloWeb("site")))
	_, err := f.Pool.Exec(ctx, `INSERT INTO steps (task_id, position, kind, title, status, message, detail) VALUES
		($1, 1, 'validate', 'Check the values', 'succeeded', '', '{}'),
		($1, 2, 'wait', 'Wait for web', 'warning', 'slow', '{}'),
		($1, 3, 'hook', 'Run smoke_test', 'failed', 'the action failed', '{"action": "smoke_test", "mode": "blocking", "error": "no answer on port 80"}'),
		($1, 4, 'helm', 'Helm install', 'failed', 'timed out', '{}'),
		($1, 5, 'cleanup', 'Clean up', 'warning', 'left a Job', '{}')`, q.TaskID)
	require.NoError(t, err)

	want := deployment.StepSummary{Warnings: 2, FailedStep: "Run smoke_test", FailedReason: "no answer on port 80"}
	full, err := f.Svc.TaskList(ctx, deployment.TaskFilter{})
	require.NoError(t, err)
	require.Len(t, full.Tasks[0].Steps, 5)
	require.Equal(t, want, full.Tasks[0].Summary)

	summed, err := f.Svc.TaskList(ctx, deployment.TaskFilter{SummaryOnly: true})
	require.NoError(t, err)
	require.Empty(t, summed.Tasks[0].Steps)
	require.Equal(t, 5, summed.Tasks[0].StepCount)
	require.Equal(t, want, summed.Tasks[0].Summary)
}

// TestAMembersTaskListHoldsTheirTeamsTasksOnlyAPageAtATime: with Teams, the
// task list holds the tasks of those teams' deployments only, newest first,
// a page at a time and through the same filters; another team's deployment
// named is unknown.
func TestAMembersTaskListHoldsTheirTeamsTasksOnlyAPageAtATime(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	queue := deploymenttest.Queued(t)
	siteInstall := queue(f.Svc.Queue(ctx, deploymenttest.HelloWeb("site")))
	cacheInstall := queue(f.Svc.Queue(ctx, deploymenttest.Redis("cache")))
	stop := queue(f.Svc.Queue(ctx, &deployment.Stop{Name: "site", Components: []string{"web"}, By: "alice"}))
	otherInstall := queue(f.Svc.Queue(ctx, deploymenttest.HelloWeb("other")))
	teamOf := map[string][]string{"a": {"site", "cache"}, "b": {"other"}}
	ids := map[string]int64{}
	for team, names := range teamOf {
		var id int64
		require.NoError(t, f.Pool.QueryRow(ctx, `INSERT INTO teams (name) VALUES ($1) RETURNING id`, team).Scan(&id))
		_, err := f.Pool.Exec(ctx, `UPDATE deployments SET team_id = $1 WHERE name = ANY($2)`, id, names)
		require.NoError(t, err)
		ids[team] = id
	}
	taskIDs := func(list *deployment.TaskList) []int64 {
		out := []int64{}
		for _, task := range list.Tasks {
			out = append(out, task.ID)
		}
		return out
	}
	list := func(filter deployment.TaskFilter) *deployment.TaskList {
		l, err := f.Svc.TaskList(ctx, filter)
		require.NoError(t, err)
		return l
	}

	first := list(deployment.TaskFilter{Teams: []int64{ids["a"]}, PageSize: 2})
	require.Equal(t, []int64{stop.TaskID, cacheInstall.TaskID}, taskIDs(first), "team b's newer task is not in team a's list")
	require.Equal(t, cacheInstall.TaskID, first.Next)
	second := list(deployment.TaskFilter{Teams: []int64{ids["a"]}, PageSize: 2, Before: first.Next})
	require.Equal(t, []int64{siteInstall.TaskID}, taskIDs(second))
	require.Zero(t, second.Next, "the last page")

	require.Equal(t, []int64{cacheInstall.TaskID, siteInstall.TaskID},
		taskIDs(list(deployment.TaskFilter{Teams: []int64{ids["a"]}, Kind: deployment.KindInstall})))
	require.Equal(t, []int64{stop.TaskID, siteInstall.TaskID},
		taskIDs(list(deployment.TaskFilter{Teams: []int64{ids["a"]}, Deployment: "site"})))
	require.Equal(t, []int64{otherInstall.TaskID, stop.TaskID, cacheInstall.TaskID, siteInstall.TaskID},
		taskIDs(list(deployment.TaskFilter{Teams: []int64{ids["a"], ids["b"]}})))
	require.Empty(t, taskIDs(list(deployment.TaskFilter{Teams: []int64{}})), "a member of no team sees no task")

	_, err := f.Svc.TaskList(ctx, deployment.TaskFilter{Teams: []int64{ids["a"]}, Deployment: "other"})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "another team's deployment is unknown")
}
