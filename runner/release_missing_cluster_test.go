package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/release"
)

// TestAReleaseUninstalledOutsideStyrminIsSaidOnItsPageAndTheDeploymentDeletes:
// someone runs `helm uninstall` on a deployment's release (or the cluster is
// replaced, as the local one is at each start). The deployment's page says
// the release is gone and what to do, keeps Styrmin's records of its
// revisions, and a delete still ends the deployment.
func TestAReleaseUninstalledOutsideStyrminIsSaidOnItsPageAndTheDeploymentDeletes(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	name := kubetest.UniqueName("gone")
	f.CleanUp(t, name)
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deploymenttest.HelloWeb(name))))
	require.Empty(t, f.Svc.Live(ctx, deploymenttest.MustGet(t, f.Fixture, name), nil).ReleaseMissing, "installed: nothing is missing")

	_, err := action.NewUninstall(deploymenttest.HelmOutsideStyrmin(t, f, name)).Run(name)
	require.NoError(t, err)

	live := f.Svc.Live(ctx, deploymenttest.MustGet(t, f.Fixture, name), nil)
	require.Empty(t, live.Err, "the cluster answered")
	require.Contains(t, live.ReleaseMissing, "Helm has no release "+name+" in namespace "+name+", though Styrmin installed it")
	require.Contains(t, live.ReleaseMissing, "Delete this deployment to forget it")
	require.Len(t, live.History, 1, "Styrmin's record of revision 1")
	require.Equal(t, release.StatusUnknown, live.History[0].Status)
	require.Equal(t, "1.0.0", live.History[0].DriverVersion)

	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: name, Confirm: name, By: "alice"})))
	require.Equal(t, deployment.StatusDeleted, deploymenttest.MustGet(t, f.Fixture, name).Status)
}
