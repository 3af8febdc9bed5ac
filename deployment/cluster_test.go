package deployment_test

import (
	"context"
	"crypto/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
)

// clusterFixture is a service on the local cluster.
type clusterFixture struct {
	fixture
	cluster    *deployment.Cluster
	kubeconfig string
}

// setupClusterWithoutWorker returns a service deploying to the local
// Kubernetes; nothing works its tasks.
func setupClusterWithoutWorker(t testing.TB) clusterFixture {
	t.Helper()
	return newClusterFixture(t, apptest.Options{})
}

// setupCluster returns a service deploying to the local Kubernetes, with a
// worker working its tasks until the test ends and driver actions run for
// real: python3, the styrmin package, and the primitive endpoints served by
// the environment's server.
func setupCluster(t testing.TB) clusterFixture {
	t.Helper()
	f := newClusterFixture(t, apptest.Options{Work: true, Actions: true})
	f.env.Start(t)
	return f
}

// setupClusterPods is setupCluster with the pod runtime: driver actions run
// as pods of the action-runner image, which reach the environment's server
// where the cluster's pods reach the host.
func setupClusterPods(t testing.TB) clusterFixture {
	t.Helper()
	kubeconfig := kubetest.Kubeconfig(t)
	f := newClusterFixture(t, apptest.Options{Work: true, Actions: true, ActionImage: kubetest.ActionRunnerImage(t), Kubeconfig: kubeconfig})
	f.env.Start(t)
	return f
}

// newClusterFixture returns the fixture of opts on the local Kubernetes.
func newClusterFixture(t testing.TB, opts apptest.Options) clusterFixture {
	t.Helper()
	opts.Kubeconfig = kubetest.Kubeconfig(t)
	f := newFixture(t, opts)
	return clusterFixture{fixture: f, cluster: f.env.Cluster, kubeconfig: opts.Kubeconfig}
}

// waitEnded waits for a task to end.
func (f fixture) waitEnded(t testing.TB, name string, id int64) *deployment.Task {
	t.Helper()
	return executortest.Wait(t, func(ctx context.Context) (*deployment.Task, error) { return f.svc.Task(ctx, name, id) }, (*deployment.Task).Ended)
}

// waitTask waits for a task to end and requires it to succeed.
func (f clusterFixture) waitTask(t testing.TB, name string, q *deployment.Queued) *deployment.Task {
	t.Helper()
	task := f.waitEnded(t, name, q.TaskID)
	require.Equal(t, executor.TaskSucceeded, task.Status, "%s task: %s\nsteps: %+v", task.Kind, task.Message, task.Steps)
	return task
}

// importCopy imports a copy of a bundled driver as version, with its
// spec.actions replaced by actionsYAML (a YAML list; "" removes them) and,
// when actionsPy is not "", its actions.py replaced (bundledtest.Copy).
func (f fixture) importCopy(t *testing.T, driver, version, actionsYAML, actionsPy string) {
	t.Helper()
	_, err := f.catalog.ImportFS(context.Background(), bundledtest.Copy(t, driver, version, actionsYAML, actionsPy), ".", "test")
	require.NoError(t, err)
}

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
	f := setupCluster(t)
	for _, tc := range []struct {
		install     *deployment.Install
		nextApp     string
		upgradeWith deployment.FormInput
	}{
		{helloWeb(uniqueName("life-hello")), "1.27.1", map[string]string{"replicas": "3", "site_title": "Upgraded"}},
		{postgres(uniqueName("life-pg")), "16.5.0", map[string]string{"database": "app", "max_connections": "150"}},
		{redis(uniqueName("life-redis")), "7.4.1", map[string]string{"replicas": "1"}},
	} {
		tc.install.DriverVersion = "1.0.1"
		f.importCopy(t, tc.install.Driver, "1.0.1", "", "")
		f.importCopy(t, tc.install.Driver, "1.1.0", "", "")
		t.Run(tc.install.Driver, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			name := tc.install.Name
			f.cleanUp(t, name)

			f.waitTask(t, name, queued(t)(f.svc.Queue(ctx, tc.install)))
			d := mustGet(t, f.fixture, name)
			require.Equal(t, deployment.StatusDeployed, d.Status)
			requireHistory(t, f, d, 1)
			requireLive(t, f, d)

			review, err := f.svc.Review(ctx, &deployment.Upgrade{Name: name, DriverVersion: "1.1.0", AppVersion: tc.nextApp, Parameters: tc.upgradeWith, By: "alice"})
			require.NoError(t, err)
			require.Empty(t, review.DryRunError)
			require.NotEmpty(t, review.Resources, "the dry run shows the manifest")
			f.waitTask(t, name, queued(t)(f.svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})))
			d = mustGet(t, f.fixture, name)
			require.Equal(t, "1.1.0", d.DriverVersion)
			require.Equal(t, tc.nextApp, d.AppVersion)
			requireHistory(t, f, d, 2)

			stop := f.waitTask(t, name, queued(t)(f.svc.Queue(ctx, &deployment.Stop{Name: name, By: "alice"})))
			require.NotEmpty(t, stop.Steps)
			for _, c := range mustComponents(t, f, d) {
				for _, w := range c {
					require.Zero(t, w.Replicas, "%s %s is stopped", w.Kind, w.Name)
				}
			}
			pods, err := f.cluster.Kube.Clientset.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			require.Empty(t, pods.Items, "a stop ends once its pods are gone")
			f.waitTask(t, name, queued(t)(f.svc.Queue(ctx, &deployment.Start{Name: name, By: "alice"})))
			for _, c := range mustComponents(t, f, d) {
				for _, w := range c {
					require.Positive(t, w.Replicas, "%s %s is started", w.Kind, w.Name)
					require.Equal(t, w.Replicas, w.ReadyReplicas, "%s %s is ready", w.Kind, w.Name)
				}
			}

			f.waitTask(t, name, queued(t)(f.svc.Queue(ctx, &deployment.Rollback{Name: name, Revision: 1, By: "alice"})))
			d = mustGet(t, f.fixture, name)
			require.Equal(t, "1.0.1", d.DriverVersion, "the rollback restores revision 1's driver version")
			require.Equal(t, tc.install.AppVersion, d.AppVersion)
			requireHistory(t, f, d, 3)

			f.waitTask(t, name, queued(t)(f.svc.Queue(ctx, &deployment.Delete{Name: name, Confirm: name, By: "alice"})))
			d = mustGet(t, f.fixture, name)
			require.Equal(t, deployment.StatusDeleted, d.Status)
			_, err = f.cluster.Releases.History(ctx, d.Namespace, name)
			require.Error(t, err, "Helm keeps no history of a deleted deployment")
			tasks, _, err := f.svc.Tasks(ctx, d.ID, 0, 0)
			require.NoError(t, err)
			require.Len(t, tasks, 6, "the deleted deployment keeps its tasks")
		})
	}
}

// uniqueName gives a deployment a name no earlier run left on the shared cluster.
func uniqueName(prefix string) string {
	return prefix + "-" + strings.ToLower(rand.Text()[:6])
}

// cleanUp removes a test's deployment from the cluster when the test ends,
// whatever state it is in.
func (f clusterFixture) cleanUp(t testing.TB, name string) {
	t.Cleanup(func() { apptest.Uninstall(context.Background(), f.svc, f.cluster, name, name) })
}

// requireHistory checks that Helm's history (what `helm history` shows) has
// revisions 1..n, the last one deployed.
func requireHistory(t *testing.T, f clusterFixture, d *deployment.Deployment, n int) {
	t.Helper()
	history, err := f.cluster.Releases.History(context.Background(), d.Namespace, d.Name)
	require.NoError(t, err)
	require.Len(t, history, n)
	last := history[len(history)-1]
	require.Equal(t, n, last.Number)
	require.Equal(t, release.StatusDeployed, last.Status)
}

// requireLive checks what the deployment page reads from the cluster: every
// component ready, every service at its in-cluster address, the history.
func requireLive(t *testing.T, f clusterFixture, d *deployment.Deployment) {
	t.Helper()
	live := f.svc.Live(context.Background(), d, nil)
	require.Empty(t, live.Err)
	require.NotEmpty(t, live.Components)
	for _, c := range live.Components {
		require.NotEmpty(t, c.Workloads, "component %s", c.Name)
		for _, w := range c.Workloads {
			require.Equal(t, w.Replicas, w.ReadyReplicas, "%s %s", w.Kind, w.Name)
		}
	}
	require.NotEmpty(t, live.Services)
	for _, s := range live.Services {
		require.Regexp(t, `^[a-z0-9-]+\.`+d.Namespace+`\.svc:`+strconv.Itoa(s.Port)+`$`, s.Address, "service %s", s.Name)
	}
	require.Len(t, live.History, 1)
	require.True(t, live.History[0].Current)
	require.Equal(t, d.DriverVersion, live.History[0].DriverVersion)
}

// mustComponents reads each component's workloads from the cluster.
func mustComponents(t *testing.T, f clusterFixture, d *deployment.Deployment) map[string][]kube.Workload {
	t.Helper()
	v, err := f.catalog.Get(context.Background(), d.Driver, d.DriverVersion)
	require.NoError(t, err)
	out := map[string][]kube.Workload{}
	for _, c := range v.Driver.Spec.Components {
		ws, err := f.cluster.Kube.ComponentWorkloads(context.Background(), d.Namespace, d.Name, c)
		require.NoError(t, err)
		require.NotEmpty(t, ws, "component %s has workloads", c.Name)
		out[c.Name] = ws
	}
	return out
}

// queued returns a function that passes on a queued task, failing t when
// queueing it failed: queued(t)(svc.Install(...)).
func queued(t testing.TB) func(*deployment.Queued, error) *deployment.Queued {
	return func(q *deployment.Queued, err error) *deployment.Queued {
		t.Helper()
		require.NoError(t, err)
		return q
	}
}
