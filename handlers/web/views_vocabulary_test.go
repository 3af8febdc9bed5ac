package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/views"
	"github.com/styrmin/styrmin/webhooks"
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
		string(executor.TaskQueued): views.StatusQueued, string(executor.TaskRunning): views.StatusRunning,
		string(executor.TaskSucceeded): views.StatusSucceeded, string(executor.TaskFailed): views.StatusFailed,
		string(executor.TaskCanceled): views.StatusCanceled, string(executor.StepWarning): views.StatusWarning,
		string(deployment.StatusPending): views.StatusPending, string(deployment.StatusDeployed): views.StatusDeployed,
		string(deployment.StatusDeleting): views.StatusDeleting, string(deployment.StatusDeleted): views.StatusDeleted,
	} {
		require.Equal(t, owner, view)
	}
	require.ElementsMatch(t, []string{string(executor.TaskQueued), string(executor.TaskRunning), string(executor.TaskSucceeded),
		string(executor.TaskFailed), string(executor.TaskCanceled)}, views.TaskStatuses)
	require.Equal(t, deployment.TaskKinds(), views.TaskKinds, "the pages have words for every task kind, in the registry's order")
}

// TestViewsNameTheHealthWords: the pages know every word package health
// gives, by its name.
func TestViewsNameTheHealthWords(t *testing.T) {
	t.Parallel()
	var words []string
	for _, w := range health.Words {
		words = append(words, string(w))
	}
	require.ElementsMatch(t, words, []string{views.HealthHealthy, views.HealthProgressing, views.HealthDegraded,
		views.HealthMissing, views.HealthStopped, views.HealthUnknown})
}

// TestViewsNameTheDriftWords: the pages' drift words are those the
// deployment service reads.
func TestViewsNameTheDriftWords(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{deployment.DriftSynced, deployment.DriftDrifted, deployment.DriftUnknown},
		[]string{views.DriftSynced, views.DriftDrifted, views.DriftUnknown})
}

// TestTheWebhookPageNamesTheDeliveryStatuses: the webhook page's delivery
// statuses are those package webhooks records.
func TestTheWebhookPageNamesTheDeliveryStatuses(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{webhooks.DeliveryPending, webhooks.DeliveryDelivered, webhooks.DeliveryFailed},
		[]string{views.DeliveryPending, views.DeliveryDelivered, views.DeliveryFailed})
}
