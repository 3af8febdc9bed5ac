package kube_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/kube"
)

// A start right after a stop is ready only when the pods it started are. Stop
// and start follow each other here after pauses short and long, as when a
// driver action calls stop_components and start_components; after each wait
// as many pods as the Deployment wants are ready and not being deleted. (The
// race this guards against, a ReplicaSet status still counting the pods the
// stop deletes, needs a loaded machine to show here; the unit test
// TestADeploymentIsReadyOnlyWhenItsReplicaSetHasSeenTheLatestChange sets it up.)
func TestLocalStartRightAfterAStopWaitsForTheNewPods(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	ctx := context.Background()
	labels := map[string]string{"component": "web"}
	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: namespace, Annotations: map[string]string{kube.ReleaseNameAnnotation: "shop", kube.ReleaseNamespaceAnnotation: namespace}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	_, err := client.Clientset.AppsV1().Deployments(namespace).Create(ctx, web, metav1.CreateOptions{})
	require.NoError(t, err)
	comps := []drivers.Component{component("web", nil)}
	_, err = client.WaitComponentsReady(ctx, namespace, "shop", comps, 2*time.Minute)
	require.NoError(t, err)

	for round, pause := range []time.Duration{0, 10 * time.Millisecond, 30 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond} {
		stopped, err := client.ScaleComponent(ctx, namespace, "shop", comps[0], 0)
		require.NoError(t, err)
		time.Sleep(pause) // the controllers are somewhere in the stop
		_, err = client.StartComponent(ctx, namespace, "shop", comps[0], stopped)
		require.NoError(t, err)
		_, err = client.WaitComponentsReady(ctx, namespace, "shop", comps, 2*time.Minute)
		require.NoError(t, err)

		pods, err := client.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "component=web"})
		require.NoError(t, err)
		ready := 0
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && podReady(&p) {
				ready++
			}
		}
		require.Equal(t, 3, ready, "round %d: ready pods once the start was ready", round)
	}
}

// podReady reports whether pod's Ready condition is true.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
