package deployment_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
)

// TestReconcileAndAcceptDriftOnTheLocalCluster scales and edits a Hello Web
// release behind Styrmin's back (as cluster admin, as kubectl would), then:
// a reconcile task brings the manifest back and the drift reads Synced at
// its end; a reconcile of a stopped component keeps it at 0 replicas (and a
// start afterwards is no drift); an accepted edit reads Synced with one
// accepted difference until the object changes again; a reconcile forgets
// the acceptance.
func TestReconcileAndAcceptDriftOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	name := kubetest.UniqueName("reconcile")
	f.CleanUp(t, name)
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deploymenttest.HelloWeb(name))))
	d := deploymenttest.MustGet(t, f.Fixture, name)
	web := deploymenttest.MustComponents(t, f, d)["web"][0].Name
	apps, core := f.Cluster.Kube.Clientset.AppsV1(), f.Cluster.Kube.Clientset.CoreV1()
	replicas := func() int32 {
		t.Helper()
		dep, err := apps.Deployments(d.Namespace).Get(ctx, web, metav1.GetOptions{})
		require.NoError(t, err)
		return *dep.Spec.Replicas
	}
	reconcile := func() *deployment.Drift {
		t.Helper()
		task := f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Reconcile{Name: name, By: "alice"})))
		var result struct{ Drift string }
		require.NoError(t, json.Unmarshal(task.Result, &result))
		require.Equal(t, deployment.DriftSynced, result.Drift, "the reconcile read the drift at its end")
		dr, err := f.Svc.Drift(ctx, name)
		require.NoError(t, err)
		return dr
	}

	_, err := apps.Deployments(d.Namespace).UpdateScale(ctx, web, &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: web, Namespace: d.Namespace}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Equal(t, deployment.DriftDrifted, freshDrift(t, f, name).Word)

	dr := reconcile()
	require.Equal(t, deployment.DriftSynced, dr.Word, "without waiting for the next period: %+v", driftFields(dr))
	require.Equal(t, int32(2), replicas(), "the manifest's replicas are back")

	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Stop{Name: name, By: "alice"})))
	require.Equal(t, deployment.DriftSynced, reconcile().Word)
	require.Equal(t, int32(0), replicas(), "a stopped component stays stopped through a reconcile")
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Start{Name: name, By: "alice"})))
	require.Equal(t, int32(2), replicas(), "a start restores the replicas the stop took down")
	dr = freshDrift(t, f, name)
	require.Equal(t, deployment.DriftSynced, dr.Word, "a started workload the revision held at 0 is no drift: %+v", driftFields(dr))

	label := func(value string) {
		t.Helper()
		_, err := core.ConfigMaps(d.Namespace).Patch(ctx, web, types.MergePatchType, []byte(`{"metadata":{"labels":{"app.kubernetes.io/part-of":"`+value+`"}}}`), metav1.PatchOptions{})
		require.NoError(t, err)
	}
	label("someone-else")
	require.Equal(t, deployment.DriftDrifted, freshDrift(t, f, name).Word)
	dr, err = f.Svc.AcceptDrift(ctx, name, "alice")
	require.NoError(t, err)
	require.Equal(t, deployment.DriftSynced, dr.Word)
	require.Len(t, dr.Accepted, 1)
	require.Equal(t, "ConfigMap", dr.Accepted[0].Kind)
	dr = freshDrift(t, f, name)
	require.Equal(t, deployment.DriftSynced, dr.Word, "the accepted difference read again")
	require.Len(t, dr.Accepted, 1)
	_, err = f.Svc.AcceptDrift(ctx, name, "alice")
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err), "nothing more to accept")

	label("a-third-team")
	dr = freshDrift(t, f, name)
	require.Equal(t, deployment.DriftDrifted, dr.Word, "the accepted object changed again")
	require.Empty(t, dr.Accepted)

	dr, err = f.Svc.AcceptDrift(ctx, name, "alice")
	require.NoError(t, err)
	require.Equal(t, deployment.DriftSynced, dr.Word)
	dr = reconcile()
	require.Empty(t, dr.Accepted, "a reconcile forgets the acceptances")
	label("a-fourth-team")
	require.Equal(t, deployment.DriftDrifted, freshDrift(t, f, name).Word)
}
