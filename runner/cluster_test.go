package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
)

// TestEveryBundledDriverThroughItsLifeOnTheLocalCluster installs each bundled
// driver, upgrades it (through a review) to a new driver version and a new
// application version, stops and starts its components, rolls it back and
// deletes it, checking the cluster and Helm's own history at each stage.
//
// It uses copies of the drivers without their actions, to check the
// lifecycle alone; the drivers' own actions run against their live
// applications in bundled_apps_cluster_test.go, and actions of the tests' own
// in actions_cluster_test.go.
func TestEveryBundledDriverThroughItsLifeOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	for _, tc := range []struct {
		install     *deployment.Install
		nextApp     string
		upgradeWith deployment.FormInput
	}{
		{deploymenttest.HelloWeb(kubetest.UniqueName("life-hello")), "1.27.1", map[string]string{"replicas": "3", "site_title": "Upgraded"}},
		{deploymenttest.Postgres(kubetest.UniqueName("life-pg")), "16.5.0", map[string]string{"database": "app", "max_connections": "150"}},
		{deploymenttest.Redis(kubetest.UniqueName("life-redis")), "7.4.1", map[string]string{"replicas": "1"}},
	} {
		tc.install.DriverVersion = "9.0.1" // copies under versions no bundled driver ships
		f.ImportCopy(t, tc.install.Driver, "9.0.1", "", "")
		f.ImportCopy(t, tc.install.Driver, "9.1.0", "", "")
		t.Run(tc.install.Driver, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			name := tc.install.Name
			f.CleanUp(t, name)

			f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, tc.install)))
			d := deploymenttest.MustGet(t, f.Fixture, name)
			require.Equal(t, deployment.StatusDeployed, d.Status)
			deploymenttest.RequireHistory(t, f, d, 1)
			deploymenttest.RequireLive(t, f, d)

			review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, DriverVersion: "9.1.0", AppVersion: tc.nextApp, Parameters: tc.upgradeWith, By: "alice"})
			require.NoError(t, err)
			require.Empty(t, review.DryRunError)
			require.NotEmpty(t, review.Resources, "the dry run shows the manifest")
			f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})))
			d = deploymenttest.MustGet(t, f.Fixture, name)
			require.Equal(t, "9.1.0", d.DriverVersion)
			require.Equal(t, tc.nextApp, d.AppVersion)
			deploymenttest.RequireHistory(t, f, d, 2)

			stop := f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Stop{Name: name, By: "alice"})))
			require.NotEmpty(t, stop.Steps)
			for _, c := range deploymenttest.MustComponents(t, f, d) {
				for _, w := range c {
					require.Zero(t, w.Replicas, "%s %s is stopped", w.Kind, w.Name)
				}
			}
			pods, err := f.Cluster.Kube.Clientset.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			require.Empty(t, pods.Items, "a stop ends once its pods are gone")
			f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Start{Name: name, By: "alice"})))
			for _, c := range deploymenttest.MustComponents(t, f, d) {
				for _, w := range c {
					require.Positive(t, w.Replicas, "%s %s is started", w.Kind, w.Name)
					require.Equal(t, w.Replicas, w.ReadyReplicas, "%s %s is ready", w.Kind, w.Name)
				}
			}

			f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Rollback{Name: name, Revision: 1, By: "alice"})))
			d = deploymenttest.MustGet(t, f.Fixture, name)
			require.Equal(t, "9.0.1", d.DriverVersion, "the rollback restores revision 1's driver version")
			require.Equal(t, tc.install.AppVersion, d.AppVersion)
			deploymenttest.RequireHistory(t, f, d, 3)

			f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: name, Confirm: name, By: "alice"})))
			d = deploymenttest.MustGet(t, f.Fixture, name)
			require.Equal(t, deployment.StatusDeleted, d.Status)
			_, err = f.Cluster.Releases.History(ctx, d.Namespace, name)
			require.Error(t, err, "Helm keeps no history of a deleted deployment")
			tasks, _, err := f.Svc.Tasks(ctx, d.ID, 0, 0)
			require.NoError(t, err)
			require.Len(t, tasks, 6, "the deleted deployment keeps its tasks")
		})
	}
}
