package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release/releasetest"
)

// crashingPostgres is the StatefulSet of PostgreSQL deployment "db" with
// its one pod crash-looping, whose container's last words and an event of
// it quote the deployment's password (deploymenttest.Postgres).
func crashingPostgres() *fake.Clientset {
	labels := map[string]string{"app.kubernetes.io/name": "postgresql", "app.kubernetes.io/component": "primary"}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db-postgresql", Namespace: "db", Generation: 1,
			Annotations: map[string]string{kube.ReleaseNameAnnotation: "db", kube.ReleaseNamespaceAnnotation: "db"}},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-postgresql-0", Namespace: "db", Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "postgres", RestartCount: 5,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", Message: "FATAL: password s3cret-password refused"}}}}}}
	event := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e1", Namespace: "db"}, Type: "Warning", Reason: "BackOff",
		Message: "connecting with s3cret-password failed", InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "db-postgresql-0"}}
	return fake.NewClientset(sts, pod, event)
}

func TestHealthSaysWhyAndHidesTheDeploymentsSecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, &deployment.Cluster{Kube: &kube.Client{Clientset: crashingPostgres()}, Releases: releasetest.New(t).Client})
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("db"))
	require.NoError(t, err)

	h, err := f.Svc.Health(ctx, "db")
	require.NoError(t, err)
	require.Equal(t, health.Degraded, h.Word)
	require.Equal(t, []string{"pod db-postgresql-0: CrashLoopBackOff, restarted 5 times, last ended Error"}, h.Reasons)
	require.Equal(t, "FATAL: password <redacted> refused", h.Pods[0].Message, "a container's last words go through the redactor")
	require.Equal(t, "connecting with <redacted> failed", h.Events[0].Message, "and so do events")

	again, err := f.Svc.Health(ctx, "db")
	require.NoError(t, err)
	require.Same(t, h, again, "a poll within HealthFresh is served the same read")
	v, err := f.Svc.View(ctx, "db", deployment.ViewOptions{})
	require.NoError(t, err)
	require.Equal(t, health.Degraded, v.Live.Health.Word, "the page's view assesses the same")
	require.Equal(t, "connecting with <redacted> failed", v.Live.Health.Events[0].Message)

	page, err := f.Svc.List(ctx, deployment.ListOptions{})
	require.NoError(t, err)
	require.Equal(t, health.Degraded, page.Items[0].Health.Word, "the list shows the newest read")
	require.Equal(t, []string{"db"}, healthNames(f.Svc.Healths()))
}

func TestHealthOfAnUnreachableClusterIsUnknownAndCheckHealthForgetsTheDeleted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, deploymenttest.DeadCluster(t))
	_, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb("shop"))
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, deploymenttest.HelloWeb("gone"))
	require.NoError(t, err)

	require.NoError(t, f.Svc.CheckHealth(ctx))
	require.Equal(t, []string{"gone", "shop"}, healthNames(f.Svc.Healths()))
	h, err := f.Svc.Health(ctx, "shop")
	require.NoError(t, err)
	require.Equal(t, health.Unknown, h.Word)
	require.Len(t, h.Reasons, 1)
	require.Contains(t, h.Reasons[0], "cluster", "the reason says the cluster did not answer")

	gone := deploymenttest.MustGet(t, f, "gone")
	require.NoError(t, f.Q.MarkDeploymentDeleted(ctx, gone.ID))
	require.NoError(t, f.Svc.CheckHealth(ctx))
	require.Equal(t, []string{"shop"}, healthNames(f.Svc.Healths()), "a deleted deployment's health is forgotten")
	_, err = f.Svc.Health(ctx, "gone")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

// healthNames are the deployments of hs.
func healthNames(hs []*deployment.Health) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Name)
	}
	return out
}
