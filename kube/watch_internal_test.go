package kube

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// crashingWeb is Deployment web of release shop in namespace shop with a
// crash-looping pod and a warning event of it.
func crashingWeb() []runtime.Object {
	labels := map[string]string{"app": "web"}
	one := int32(1)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Generation: 1,
		Annotations: map[string]string{ReleaseNameAnnotation: "shop", ReleaseNamespaceAnnotation: "shop"}},
		Spec:   appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", Labels: labels},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{RestartCount: 2,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}}}
	event := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "shop"}, Type: "Warning", Reason: "BackOff",
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-1"}}
	return []runtime.Object{d, pod, event}
}

func TestWatchesReadWhatListsReadAndFollowChanges(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	clientset := fake.NewClientset(crashingWeb()...)
	w := NewWatches(clientset, time.Hour)
	t.Cleanup(w.Stop)

	listed, err := (&Client{Clientset: clientset}).ReleaseState(ctx, "shop", "shop")
	require.NoError(t, err)
	watched, err := w.ReleaseState(ctx, "shop", "shop")
	require.NoError(t, err)
	require.Equal(t, listed, watched)
	require.Equal(t, "CrashLoopBackOff", watched.Pods[0].Waiting)
	require.Len(t, watched.Events, 1)

	_, err = clientset.CoreV1().Pods("shop").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-2", Namespace: "shop", Labels: map[string]string{"app": "web"}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		s, err := w.ReleaseState(ctx, "shop", "shop")
		return err == nil && len(s.Pods) == 2
	}, 5*time.Second, 20*time.Millisecond, "the watch sees a new pod")
	lists := 0
	for _, a := range clientset.Actions() {
		if a.GetVerb() == "list" {
			lists++
		}
	}
	require.Equal(t, 6+6, lists, "the list read's six lists and the watch's first six: no list per read")
}

func TestWatchesStopAnIdleNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := NewWatches(fake.NewClientset(crashingWeb()...), 50*time.Millisecond)
	t.Cleanup(w.Stop)
	_, err := w.ReleaseState(ctx, "shop", "shop")
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond)
	_, err = w.ReleaseState(ctx, "other", "other")
	require.NoError(t, err)
	require.Equal(t, []string{"other"}, w.watching(), "a namespace no read asked for is no longer watched")
	w.Stop()
	require.Empty(t, w.watching())
}

func TestWatchesSayAtOnceWhyTheyCannotList(t *testing.T) {
	t.Parallel()
	clientset := fake.NewClientset()
	clientset.PrependReactor("list", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New(`events is forbidden: User "styrmin" cannot list resource "events"`)
	})
	w := NewWatches(clientset, time.Hour)
	t.Cleanup(w.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := w.ReleaseState(ctx, "shop", "shop")
	require.ErrorContains(t, err, `kube: watch shop: `)
	require.ErrorContains(t, err, `cannot list resource "events"`)
	require.Less(t, time.Since(start), 5*time.Second, "not at the end of the read's time")
}
