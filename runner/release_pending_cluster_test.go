package runner_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	helmrelease "helm.sh/helm/v3/pkg/release"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
)

// leavePendingUpgrade records a next revision of release name as an upgrade
// leaves it when the cluster vanishes in the middle of it: stored as
// pending-upgrade, never finished (no process stopped, so no crash recovery
// runs).
func leavePendingUpgrade(t *testing.T, f deploymenttest.ClusterFixture, name string) {
	t.Helper()
	store := deploymenttest.HelmOutsideStyrmin(t, f, name).Releases
	last, err := store.Last(name)
	require.NoError(t, err)
	next := *last
	next.Info = &helmrelease.Info{Status: helmrelease.StatusPendingUpgrade, Description: "Upgrade underway", LastDeployed: last.Info.LastDeployed}
	next.Version = last.Version + 1
	require.NoError(t, store.Create(&next))
}

// TestAnUpgradeRecoversAReleaseLeftPending: the cluster vanished in the
// middle of a Helm upgrade, leaving the release pending-upgrade, which Helm
// refuses to change again. The next upgrade's review says it recovers the
// release first and may be confirmed; the upgrade recovers it as crash
// recovery does (marked failed, rolled back), in a step that says so, then
// upgrades.
func TestAnUpgradeRecoversAReleaseLeftPending(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	name := kubetest.UniqueName("pending")
	f.CleanUp(t, name)
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deploymenttest.HelloWeb(name))))
	leavePendingUpgrade(t, f, name)

	review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"replicas": "1"}, By: "alice"})
	require.NoError(t, err)
	require.Empty(t, review.DryRunError, "the upgrade may be confirmed")
	require.Contains(t, review.RecoversFirst, "Release "+name+" was left pending-upgrade at revision 2")
	upgrade := f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})))

	recovered := upgrade.Steps[slices.IndexFunc(upgrade.Steps, func(s deployment.Step) bool { return s.Kind == deployment.StepHelm })]
	require.Equal(t, "Recover release "+name+", left pending-upgrade at revision 2", recovered.Title, "the first Helm step")
	require.Equal(t, executor.StepWarning, recovered.Status)
	require.Contains(t, recovered.Message, "marked it failed and rolled back to revision 1")
	history, err := f.Cluster.Releases.History(ctx, name, name)
	require.NoError(t, err)
	var statuses []release.Status
	for _, r := range history {
		statuses = append(statuses, r.Status)
	}
	require.Equal(t, []release.Status{release.StatusSuperseded, release.StatusFailed, release.StatusSuperseded, release.StatusDeployed}, statuses,
		"revision 2 failed, 3 rolled back to 1, 4 is the upgrade")
	require.EqualValues(t, 1, deploymenttest.MustGet(t, f.Fixture, name).Parameters["replicas"])
}
