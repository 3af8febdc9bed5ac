package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/views"
)

// TestReviewPageNamesEachReleaseChange: the review page's changes are
// release's, converted by value (deployment_review.go), so each must keep
// its name.
func TestReviewPageNamesEachReleaseChange(t *testing.T) {
	t.Parallel()
	for from, want := range map[release.Change]views.Change{
		release.Added: views.ChangeAdded, release.Removed: views.ChangeRemoved,
		release.Changed: views.ChangeChanged, release.Unchanged: views.ChangeUnchanged,
	} {
		require.Equal(t, want, views.Change(from))
	}
}

// TestViewsNameTheStatusesAndKindsTheyShow: the pages' names of statuses
// and task kinds are those the executor and deployment store, and the tasks
// page offers every task status and kind.
func TestViewsNameTheStatusesAndKindsTheyShow(t *testing.T) {
	t.Parallel()
	for owner, view := range map[string]string{
		executor.TaskQueued: views.StatusQueued, executor.TaskRunning: views.StatusRunning,
		executor.TaskSucceeded: views.StatusSucceeded, executor.TaskFailed: views.StatusFailed,
		executor.TaskCanceled: views.StatusCanceled, executor.StepWarning: views.StatusWarning,
		deployment.StatusPending: views.StatusPending, deployment.StatusDeployed: views.StatusDeployed,
		deployment.StatusDeleting: views.StatusDeleting,
	} {
		require.Equal(t, owner, view)
	}
	require.ElementsMatch(t, []string{executor.TaskQueued, executor.TaskRunning, executor.TaskSucceeded, executor.TaskFailed, executor.TaskCanceled}, views.TaskStatuses)
	require.ElementsMatch(t, []string{deployment.KindInstall, deployment.KindUpgrade, deployment.KindRollback, deployment.KindStop,
		deployment.KindStart, deployment.KindDelete, deployment.KindAction}, views.TaskKinds)
}
