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
