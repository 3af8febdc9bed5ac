package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor"
)

// TestDeletingADeploymentLeavesItsNamespaceWhileAnythingElseIsInIt is the
// attack on what shares a namespace Styrmin created for a deployment:
// another team keeps a volume and a ConfigMap of its data there, and a second
// deployment moves in. Deleting the first deployment leaves the namespace,
// the team's data and the second deployment as they are, and its step says
// what kept the namespace. Once the team's data is gone, deleting the second
// deployment, the last one, removes the namespace.
func TestDeletingADeploymentLeavesItsNamespaceWhileAnythingElseIsInIt(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	first, second := sharedNamespace(t, f)
	ns := first
	require.True(t, deploymenttest.MustGet(t, f.Fixture, first).NamespaceCreated, "Styrmin created the namespace")

	core := f.Cluster.Kube.Clientset.CoreV1()
	_, err := core.PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "team-volume"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Mi")}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = core.ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "team-data"}, Data: map[string]string{"ledger": "2024: 1 412 €"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	install := deploymenttest.HelloWeb(second)
	install.Namespace = ns
	f.WaitTask(t, second, deploymenttest.Queued(t)(f.Svc.Queue(ctx, install)))
	require.False(t, deploymenttest.MustGet(t, f.Fixture, second).NamespaceCreated, "the namespace existed")

	deleted := f.WaitTask(t, first, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: first, Confirm: first, By: "mallory"})))
	require.Equal(t, deployment.StatusDeleted, deploymenttest.MustGet(t, f.Fixture, first).Status)
	namespace, err := core.Namespaces().Get(ctx, ns, metav1.GetOptions{})
	require.NoError(t, err)
	require.Nil(t, namespace.DeletionTimestamp, "the namespace is not being deleted")
	_, err = core.PersistentVolumeClaims(ns).Get(ctx, "team-volume", metav1.GetOptions{})
	require.NoError(t, err, "the team's volume is in place")
	_, err = core.ConfigMaps(ns).Get(ctx, "team-data", metav1.GetOptions{})
	require.NoError(t, err, "the team's data is in place")
	deploymenttest.RequireLive(t, f, deploymenttest.MustGet(t, f.Fixture, second))
	step := namespaceStep(t, deleted)
	require.Equal(t, executor.StepWarning, step.Status)
	require.Equal(t, "Namespace "+ns+" is kept: deployment "+second+" also deploys into it; it still holds Helm release "+second+
		" (of deployment "+second+"; 5 objects), 1 PersistentVolumeClaim (team-volume) and 1 ConfigMap (team-data). "+
		"The last of those deployments to be deleted removes it, if nothing else is left in it then.", step.Message)

	require.NoError(t, core.PersistentVolumeClaims(ns).Delete(ctx, "team-volume", metav1.DeleteOptions{}))
	require.NoError(t, core.ConfigMaps(ns).Delete(ctx, "team-data", metav1.DeleteOptions{}))
	step = namespaceStep(t, f.WaitTask(t, second, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: second, Confirm: second, By: "alice"}))))
	require.Equal(t, executor.StepSucceeded, step.Status, step.Message)
	requireNamespaceDeleted(t, f, ns)
}

// TestADeploymentWhoseReleaseIsGoneJustNowKeepsItsNamespace: a second
// deployment shares the namespace Styrmin created for a first, and its
// release is gone when the first is deleted (uninstalled outside Styrmin,
// or not installed yet). The namespace stays for the second deployment,
// whose delete then removes it.
func TestADeploymentWhoseReleaseIsGoneJustNowKeepsItsNamespace(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	first, second := sharedNamespace(t, f)
	ns := first
	install := deploymenttest.HelloWeb(second)
	install.Namespace = ns
	f.WaitTask(t, second, deploymenttest.Queued(t)(f.Svc.Queue(ctx, install)))
	uninstall := action.NewUninstall(deploymenttest.HelmOutsideStyrmin(t, f, ns))
	uninstall.Wait = true
	_, err := uninstall.Run(second)
	require.NoError(t, err)

	deleted := f.WaitTask(t, first, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: first, Confirm: first, By: "alice"})))
	namespace, err := f.Cluster.Kube.Clientset.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	require.NoError(t, err)
	require.Nil(t, namespace.DeletionTimestamp, "the namespace is not being deleted")
	step := namespaceStep(t, deleted)
	require.Equal(t, executor.StepWarning, step.Status)
	require.Equal(t, "Namespace "+ns+" is kept: deployment "+second+" also deploys into it; it still holds 1 Job ("+second+"-job). "+
		"The last of those deployments to be deleted removes it, if nothing else is left in it then.", step.Message)
	require.True(t, deploymenttest.MustGet(t, f.Fixture, second).NamespaceCreated, "the second deployment now removes the namespace")

	step = namespaceStep(t, f.WaitTask(t, second, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: second, Confirm: second, By: "alice"}))))
	require.Equal(t, executor.StepSucceeded, step.Status, step.Message)
	requireNamespaceDeleted(t, f, ns)
}

// sharedNamespace installs deployment first into a namespace Styrmin
// creates for it, named after it, and names a second deployment to go there
// too; both are removed when the test ends.
func sharedNamespace(t *testing.T, f deploymenttest.ClusterFixture) (first, second string) {
	t.Helper()
	first, second = kubetest.UniqueName("first"), kubetest.UniqueName("second")
	f.CleanUp(t, first)
	t.Cleanup(func() { apptest.Uninstall(context.Background(), f.Svc, f.Cluster, second, first) })
	f.WaitTask(t, first, deploymenttest.Queued(t)(f.Svc.Queue(context.Background(), deploymenttest.HelloWeb(first))))
	return first, second
}

// namespaceStep is the namespace step of a delete task.
func namespaceStep(t *testing.T, task *deployment.Task) deployment.Step {
	t.Helper()
	for _, s := range task.Steps {
		if s.Kind == deployment.StepNamespace {
			return s
		}
	}
	require.FailNow(t, "the task has no namespace step", "steps: %+v", task.Steps)
	return deployment.Step{}
}

// requireNamespaceDeleted checks that namespace ns is gone or being deleted
// (a volume's finalizer may hold it a while).
func requireNamespaceDeleted(t *testing.T, f deploymenttest.ClusterFixture, ns string) {
	t.Helper()
	namespace, err := f.Cluster.Kube.Clientset.CoreV1().Namespaces().Get(context.Background(), ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	require.NoError(t, err)
	require.NotNil(t, namespace.DeletionTimestamp, "namespace %s is being deleted", ns)
}
