package deployment_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drift"
)

// TestDriftOnTheLocalCluster changes a Hello Web release behind Styrmin's
// back, as `kubectl scale` and `kubectl edit` do, and reads its drift: a
// fresh release is Synced (what the cluster sets and defaults is no drift),
// the changes are Drifted with their fields, a deleted object is deleted,
// and a stop's replicas are no drift.
func TestDriftOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	name := kubetest.UniqueName("drift")
	f.CleanUp(t, name)
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deploymenttest.HelloWeb(name))))
	d := deploymenttest.MustGet(t, f.Fixture, name)

	dr, err := f.Svc.Drift(ctx, name)
	require.NoError(t, err)
	require.Equal(t, deployment.DriftSynced, dr.Word, "a fresh release: %+v", driftFields(dr))
	require.Empty(t, dr.Unchecked)
	require.Equal(t, 3, dr.Checked, "its ConfigMap, Deployment and Service")

	web := deploymenttest.MustComponents(t, f, d)["web"][0].Name
	apps, core := f.Cluster.Kube.Clientset.AppsV1(), f.Cluster.Kube.Clientset.CoreV1()
	_, err = apps.Deployments(d.Namespace).UpdateScale(ctx, web, &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: web, Namespace: d.Namespace}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = core.ConfigMaps(d.Namespace).Patch(ctx, web, types.MergePatchType, []byte(`{"metadata":{"labels":{"app.kubernetes.io/part-of":"someone-else"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.NoError(t, core.Services(d.Namespace).Delete(ctx, web, metav1.DeleteOptions{}))

	dr = freshDrift(t, f, name)
	require.Equal(t, deployment.DriftDrifted, dr.Word)
	changes := map[string]drift.ObjectDiff{}
	for _, o := range dr.Objects {
		changes[o.Kind] = o
	}
	require.Len(t, changes, 3, "%+v", dr.Objects)
	require.Equal(t, []drift.FieldDiff{{Path: "spec.replicas", Want: "2", Have: "3"}}, changes["Deployment"].Fields)
	require.Equal(t, []drift.FieldDiff{{Path: "metadata.labels.app.kubernetes.io/part-of", Want: `"styrmin"`, Have: `"someone-else"`}}, changes["ConfigMap"].Fields)
	require.NotEmpty(t, changes["ConfigMap"].ResourceVersion)
	require.Equal(t, drift.Deleted, changes["Service"].Change)

	page, err := f.Svc.List(ctx, deployment.ListOptions{})
	require.NoError(t, err)
	for _, s := range page.Items {
		if s.Name == name {
			require.Equal(t, deployment.DriftDrifted, s.Drift.Word, "the list shows the newest read")
		}
	}

	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Stop{Name: name, By: "alice"})))
	dr = freshDrift(t, f, name)
	require.Len(t, dr.Objects, 2, "a stop's replicas are no drift: %+v", dr.Objects)
	for _, o := range dr.Objects {
		require.NotEqual(t, "Deployment", o.Kind)
	}
}

// freshDrift reads name's drift anew, past the read served again for HealthFresh.
func freshDrift(t *testing.T, f deploymenttest.ClusterFixture, name string) *deployment.Drift {
	t.Helper()
	time.Sleep(deployment.HealthFresh)
	dr, err := f.Svc.Drift(context.Background(), name)
	require.NoError(t, err)
	return dr
}

// driftFields are the fields that differ, for a failure's message.
func driftFields(dr *deployment.Drift) [][]drift.FieldDiff {
	var out [][]drift.FieldDiff
	for _, o := range dr.Objects {
		out = append(out, o.Fields)
	}
	return out
}
