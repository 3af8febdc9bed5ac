package devcluster_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart/loader"
	helmrelease "helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
)

// readyTimeout bounds the wait for a deployment's components.
// owner is the Styrmin installation and deployment these releases are made for.
var owner = release.Owner{Installation: "devcluster-test", Deployment: 1}

const readyTimeout = 3 * time.Minute

// lifecycle is one bundled driver deployed on the local cluster through the
// release layer and kube, as the executor's tasks do it.
type lifecycle struct {
	client   *kube.Client
	releases *release.Client
	bundle   *drivers.Bundle
	ns, name string
}

// newLifecycle connects and loads driver; the namespace is not created yet.
func newLifecycle(t *testing.T, driver string) *lifecycle {
	t.Helper()
	client, err := kube.Connect(kubetest.Kubeconfig(t), "")
	require.NoError(t, err)
	b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), driver)
	require.NoError(t, err)
	l := &lifecycle{client: client, releases: releaseClient(t, client), bundle: b, ns: "life-" + rand.String(6), name: driver}
	t.Cleanup(func() { require.NoError(t, client.DeleteNamespace(context.Background(), l.ns)) })
	return l
}

// values renders the driver's values with its defaults and overrides.
func (l *lifecycle) values(t *testing.T, overrides map[string]any) map[string]any {
	t.Helper()
	return renderDefaultValues(t, l.bundle.Driver, l.bundle.Chart.Metadata.AppVersion, l.ns, l.name, overrides)
}

// waitReady waits for every component of the driver and returns their statuses by name.
func (l *lifecycle) waitReady(t *testing.T) map[string]kube.ComponentStatus {
	t.Helper()
	statuses, err := l.client.WaitComponentsReady(context.Background(), l.ns, l.name, l.bundle.Driver.Spec.Components, readyTimeout)
	require.NoError(t, err)
	byName := map[string]kube.ComponentStatus{}
	for _, s := range statuses {
		byName[s.Component] = s
	}
	return byName
}

// component is the driver's component called name.
func (l *lifecycle) component(t *testing.T, name string) drivers.Component {
	t.Helper()
	for _, c := range l.bundle.Driver.Spec.Components {
		if c.Name == name {
			return c
		}
	}
	require.Failf(t, "no component", "driver %s has no component %s", l.name, name)
	return drivers.Component{}
}

// historyStatuses is the status of each revision, oldest first.
func (l *lifecycle) historyStatuses(t *testing.T) []release.Status {
	t.Helper()
	history, err := l.releases.History(context.Background(), l.ns, l.name)
	require.NoError(t, err)
	var statuses []release.Status
	for i, r := range history {
		require.Equal(t, i+1, r.Number)
		statuses = append(statuses, r.Status)
	}
	return statuses
}

// replicasOf is the desired replicas of a component's single workload.
func replicasOf(t *testing.T, s kube.ComponentStatus) int32 {
	t.Helper()
	require.Len(t, s.Workloads, 1, "component %s", s.Component)
	return s.Workloads[0].Replicas
}

// TestDeploymentLifecycle takes the redis driver through what a deployment
// lives through: install in a namespace Styrmin creates, upgrade with changed
// values, stop and start a component, roll back, uninstall, namespace deleted.
// Helm's records are Secrets in the deployment's namespace.
func TestDeploymentLifecycle(t *testing.T) {
	t.Parallel()
	l := newLifecycle(t, "redis")
	ctx := context.Background()

	created, err := l.client.EnsureNamespace(ctx, l.ns, true, nil)
	require.NoError(t, err)
	require.True(t, created)

	rel, err := l.releases.Install(ctx, release.InstallOptions{Namespace: l.ns, Name: l.name, Owner: owner, Chart: l.bundle.Chart, Values: l.values(t, nil)})
	require.NoError(t, err)
	require.Equal(t, release.StatusDeployed, rel.Status)
	require.Equal(t, l.bundle.Chart.Metadata.AppVersion, rel.AppVersion)
	components := l.waitReady(t)
	require.Equal(t, int32(1), replicasOf(t, components["primary"]))
	require.Equal(t, int32(2), replicasOf(t, components["replica"]))

	dry, err := l.releases.Upgrade(ctx, release.UpgradeOptions{Namespace: l.ns, Name: l.name, Owner: owner, Chart: l.bundle.Chart, Values: l.values(t, map[string]any{"replicas": 3}), DryRun: true})
	require.NoError(t, err)
	var changed []string
	for _, d := range release.DiffManifests(rel.Manifest, dry.Manifest) {
		if d.Change != release.Unchanged {
			changed = append(changed, d.Kind+"/"+d.Name)
			require.NotContains(t, d.Diff, testPassword)
		}
	}
	require.Equal(t, []string{"StatefulSet/redis-redis-replica"}, changed)

	rel, err = l.releases.Upgrade(ctx, release.UpgradeOptions{Namespace: l.ns, Name: l.name, Owner: owner, Chart: l.bundle.Chart, Values: l.values(t, map[string]any{"replicas": 3})})
	require.NoError(t, err)
	require.Equal(t, 2, rel.Number)
	require.Equal(t, int32(3), replicasOf(t, l.waitReady(t)["replica"]))

	replica := l.component(t, "replica")
	stopped, err := l.client.ScaleComponent(ctx, l.ns, l.name, replica, 0)
	require.NoError(t, err)
	require.Equal(t, int32(3), stopped[0].Replicas)
	components = l.waitReady(t)
	require.Equal(t, int32(0), replicasOf(t, components["replica"]))
	require.Equal(t, int32(1), components["primary"].Workloads[0].ReadyReplicas, "the primary keeps running")

	_, err = l.client.StartComponent(ctx, l.ns, l.name, replica, stopped)
	require.NoError(t, err)
	components = l.waitReady(t)
	require.Equal(t, int32(3), replicasOf(t, components["replica"]), "a start restores the replicas the stop took down, not the component's default")

	require.Equal(t, []release.Status{release.StatusSuperseded, release.StatusDeployed}, l.historyStatuses(t))
	secrets, err := l.client.Clientset.CoreV1().Secrets(l.ns).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=" + l.name})
	require.NoError(t, err)
	require.Len(t, secrets.Items, 2, "helm history -n %s %s reads these", l.ns, l.name)

	rel, err = l.releases.Rollback(ctx, release.RollbackOptions{Namespace: l.ns, Name: l.name, Owner: owner, Revision: 1, Wait: true, Timeout: readyTimeout})
	require.NoError(t, err)
	require.Equal(t, 3, rel.Number)
	values, err := l.releases.GetValues(ctx, l.ns, l.name, 3)
	require.NoError(t, err)
	require.JSONEq(t, toJSON(t, l.values(t, nil)), toJSON(t, values), "revision 3 has revision 1's values")
	require.Equal(t, int32(2), replicasOf(t, l.waitReady(t)["replica"]))

	_, err = l.releases.Uninstall(ctx, release.UninstallOptions{Namespace: l.ns, Name: l.name, Owner: owner, Wait: true, Timeout: readyTimeout})
	require.NoError(t, err)
	_, err = l.releases.Status(ctx, l.ns, l.name)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "%v", err)

	require.NoError(t, l.client.DeleteNamespace(ctx, l.ns))
	waitCtx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	require.NoError(t, l.client.WaitNamespaceDeleted(waitCtx, l.ns))
}

// TestPendingUpgradeIsRecovered leaves a release pending-upgrade as a killed
// process would (the revision stored through Helm's own storage on the
// cluster, never finished) and shows that upgrades are refused until
// RecoverPending rolls it back, and succeed after.
func TestPendingUpgradeIsRecovered(t *testing.T) {
	t.Parallel()
	l := newLifecycle(t, "hello-web")
	ctx := context.Background()
	_, err := l.client.EnsureNamespace(ctx, l.ns, true, nil)
	require.NoError(t, err)
	_, err = l.releases.Install(ctx, release.InstallOptions{Namespace: l.ns, Name: l.name, Owner: owner, Chart: l.bundle.Chart, Values: l.values(t, nil)})
	require.NoError(t, err)
	l.waitReady(t)

	store := storage.Init(driver.NewSecrets(l.client.Clientset.CoreV1().Secrets(l.ns)))
	deployed, err := store.Last(l.name)
	require.NoError(t, err)
	pending := *deployed
	pending.Info = &helmrelease.Info{Status: helmrelease.StatusPendingUpgrade, Description: "Preparing upgrade", LastDeployed: helmtime.Now()}
	pending.Version = 2
	require.NoError(t, store.Create(&pending))

	upgrade := release.UpgradeOptions{Namespace: l.ns, Name: l.name, Owner: owner, Chart: l.bundle.Chart, Values: l.values(t, map[string]any{"site_title": "After recovery"})}
	_, err = l.releases.Upgrade(ctx, upgrade)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err), "%v", err)

	recovery, err := l.releases.RecoverPending(ctx, l.ns, l.name, owner)
	require.NoError(t, err)
	require.Equal(t, release.Recovery{Action: release.RecoveryRolledBack, Revision: 2, Was: release.StatusPendingUpgrade, RolledBackTo: 1,
		Message: "Revision 2 of release hello-web was pending-upgrade; marked it failed and rolled back to revision 1."}, recovery)

	rel, err := l.releases.Upgrade(ctx, upgrade)
	require.NoError(t, err)
	require.Equal(t, 4, rel.Number)
	l.waitReady(t)
	require.Equal(t, []release.Status{release.StatusSuperseded, release.StatusFailed, release.StatusSuperseded, release.StatusDeployed}, l.historyStatuses(t))
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

// TestWildChartInstalls installs a chart as found in the wild (appVersion
// v1.2.3, a subchart, a CRD in crds/, cluster-scoped RBAC, NOTES.txt) on the
// real API server, unchanged.
func TestWildChartInstalls(t *testing.T) {
	t.Parallel()
	client, ns := setup(t)
	ctx := context.Background()
	c, err := loader.Load(filepath.Join("..", "release", "testdata", "wild"))
	require.NoError(t, err)
	releases := releaseClient(t, client)

	rel, err := releases.Install(ctx, release.InstallOptions{Namespace: ns, Name: "wild", Owner: owner, Chart: c, Wait: true, Timeout: readyTimeout})
	require.NoError(t, err)
	require.Equal(t, release.StatusDeployed, rel.Status)
	require.Equal(t, "v1.2.3", rel.AppVersion)
	require.Equal(t, "wild says hello from version v1.2.3.\n", rel.Notes)

	apiext, err := apiextensionsclient.NewForConfig(client.Config)
	require.NoError(t, err)
	t.Cleanup(func() { // Helm never deletes CRDs; the next run installs it again, as a first install does
		err := apiext.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), "widgets.example.styrmin.io", metav1.DeleteOptions{})
		require.NoError(t, ignoreNotFound(err))
	})
	_, err = apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "widgets.example.styrmin.io", metav1.GetOptions{})
	require.NoError(t, err, "the chart's CRD is installed")
	widget := schema.GroupVersionResource{Group: "example.styrmin.io", Version: "v1", Resource: "widgets"}
	dyn, err := dynamic.NewForConfig(client.Config)
	require.NoError(t, err)
	_, err = dyn.Resource(widget).Namespace(ns).Get(ctx, "wild-widget", metav1.GetOptions{})
	require.NoError(t, err, "the custom resource of the chart is created once its CRD is known")
	_, err = client.Clientset.RbacV1().ClusterRoles().Get(ctx, ns+"-wild-reader", metav1.GetOptions{})
	require.NoError(t, err)
	services, err := client.ReleaseServices(ctx, ns, "wild")
	require.NoError(t, err)
	require.Len(t, services, 1, "the subchart's Service")
	require.Equal(t, "wild-sub."+ns+".svc:8080", services[0].Address(services[0].Ports[0].Port))

	_, err = releases.Uninstall(ctx, release.UninstallOptions{Namespace: ns, Name: "wild", Owner: owner, Wait: true, Timeout: readyTimeout})
	require.NoError(t, err)
	_, err = client.Clientset.RbacV1().ClusterRoles().Get(ctx, ns+"-wild-reader", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "cluster-scoped objects go with the release: %v", err)
}
