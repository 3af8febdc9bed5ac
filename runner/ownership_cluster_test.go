package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	helmrelease "helm.sh/helm/v3/pkg/release"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
)

// installOutsideStyrmin installs the Hello Web chart as release name in
// namespace name with Helm's SDK, creating the namespace, and uninstalls it
// when the test ends. It returns the release's history.
func installOutsideStyrmin(t *testing.T, f deploymenttest.ClusterFixture, name string) []*helmrelease.Release {
	t.Helper()
	ctx := context.Background()
	bundle, err := f.Catalog.Bundle(ctx, "hello-web", "1.0.0")
	require.NoError(t, err)
	values, err := release.Values(ctx, bundle.Driver, map[string]any{"site_title": "Not Styrmin's", "replicas": int64(1), "message": "", "theme": "ocean", "show_version": true, "memory_mib": int64(64)}, "1.27.0", name, name)
	require.NoError(t, err)
	helm := deploymenttest.HelmOutsideStyrmin(t, f, name)
	install := action.NewInstall(helm)
	install.ReleaseName, install.Namespace, install.CreateNamespace = name, name, true
	install.Wait, install.Timeout = true, 5*time.Minute
	_, err = install.RunWithContext(ctx, bundle.Chart, values)
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = action.NewUninstall(helm).Run(name)
		_ = f.Cluster.Kube.DeleteNamespace(context.Background(), name)
	})
	history, err := helm.Releases.History(name)
	require.NoError(t, err)
	return history
}

// TestAReleaseMadeOutsideStyrminSurvivesAnOperatorsInstallStopAndDeleteOfItsName
// is the attack on a cluster's own releases: an operator installs a
// deployment with the name and namespace of a release Styrmin did not make
// (the cluster's cert-manager, say), sees it fail, stops it, then deletes
// it. The release, its history and its objects stay as they were.
func TestAReleaseMadeOutsideStyrminSurvivesAnOperatorsInstallStopAndDeleteOfItsName(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	name := kubetest.UniqueName("theirs")
	before := installOutsideStyrmin(t, f, name)
	own := kubernetes.NewForConfigOrDie(f.Cluster.Kube.Config) // the release's namespace has no deployer of Styrmin's until the install
	workloads := func() map[string]int32 {
		list, err := own.AppsV1().Deployments(name).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		replicas := map[string]int32{}
		for _, d := range list.Items {
			replicas[d.Name] = *d.Spec.Replicas
		}
		return replicas
	}
	running := workloads()
	require.NotEmpty(t, running)

	install := f.WaitEnded(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deploymenttest.HelloWeb(name))).TaskID)
	require.Equal(t, executor.TaskFailed, install.Status)
	require.Contains(t, install.Message, "Release "+name+" in namespace "+name+" was not created by Styrmin for this deployment, so Styrmin will not change it.")

	stop := f.WaitEnded(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Stop{Name: name, By: "mallory"})).TaskID)
	require.Equal(t, executor.TaskFailed, stop.Status)
	require.Contains(t, stop.Message, "was not created by Styrmin for this deployment")
	require.Equal(t, running, workloads(), "the stop scaled nothing")

	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: name, Confirm: name, By: "mallory"})))
	require.Equal(t, deployment.StatusDeleted, deploymenttest.MustGet(t, f.Fixture, name).Status, "Styrmin forgets its deployment")

	after, err := deploymenttest.HelmOutsideStyrmin(t, f, name).Releases.History(name)
	require.NoError(t, err)
	require.Len(t, after, len(before), "the release's history is intact")
	for i := range before {
		require.Equal(t, before[i].Version, after[i].Version)
		require.Equal(t, before[i].Info.Status, after[i].Info.Status)
		require.Equal(t, before[i].Manifest, after[i].Manifest)
	}
	require.Equal(t, running, workloads(), "the release's objects are in place")
	_, err = f.Cluster.Kube.Clientset.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "the namespace is in place")
}
