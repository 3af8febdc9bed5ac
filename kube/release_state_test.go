package kube_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/styrmin/styrmin/kube"
)

// event is an event of type about object kind/name, last seen at minute.
func event(name, typ, kind, object string, minute int) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Type: typ, Reason: "Reason" + name, Message: "about " + object,
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: object, Namespace: ns}, Count: 2,
		LastTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, minute, 0, 0, time.UTC))}
}

// claim is a claim in ns, with meta's release annotations when release is not "".
func claim(name, release, phase string) *corev1.PersistentVolumeClaim {
	m := metav1.ObjectMeta{Name: name, Namespace: ns}
	if release != "" {
		m = meta(name, release)
	}
	return &corev1.PersistentVolumeClaim{ObjectMeta: m,
		Spec:   corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.PersistentVolumeClaimPhase(phase)}}
}

func TestReleaseStateReadsThePodsClaimsAndEventsOfTheRelease(t *testing.T) {
	t.Parallel()
	web := deployment("shop-web", "shop", "web", 2, 1)
	web.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "web"}}
	db := statefulSet("shop-db", "shop", "db", 1, 1)
	db.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "db"}}
	db.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
	other := deployment("other-web", "other", "other", 1, 1)
	other.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "other"}}

	crashing := annotatedPod("shop-web-1", "web", "")
	crashing.Spec = corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "nginx"}}}
	crashing.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "nginx", RestartCount: 3,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1}}}}}
	ready := annotatedPod("shop-db-0", "db", "")
	ready.Spec = corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres"}, {Name: "exporter"}}}
	ready.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "postgres", Ready: true}, {Name: "exporter"}}}

	objects := []runtime.Object{web, db, other, crashing, ready, annotatedPod("other-web-1", "other", ""),
		claim("data-shop-db-0", "", "Bound"), claim("uploads", "shop", "Pending"),
		claim("data-shop-db-x", "", "Bound"), claim("data-other-0", "", "Bound"), claim("theirs", "other", "Bound"),
		event("a", "Normal", "Pod", "shop-web-1", 5), event("b", "Warning", "Pod", "shop-web-1", 3),
		event("c", "Warning", "Deployment", "shop-web", 4), event("d", "Warning", "Pod", "other-web-1", 9),
		event("e", "Normal", "PersistentVolumeClaim", "data-shop-db-0", 1), event("f", "Normal", "ReplicaSet", "shop-web-5d8f7c", 2)}
	state, err := fakeClient(objects...).ReleaseState(context.Background(), ns, "shop")
	require.NoError(t, err)

	require.Len(t, state.Workloads, 2)
	require.Equal(t, []kube.Pod{
		{Name: "shop-db-0", Workload: "StatefulSet/shop-db", Phase: "Running", Ready: 1, Containers: 2, ContainerNames: []string{"postgres", "exporter"}},
		{Name: "shop-web-1", Workload: "Deployment/shop-web", Phase: "Running", Containers: 1, ContainerNames: []string{"nginx"}, Restarts: 3, Node: "node-1",
			Waiting: "CrashLoopBackOff", LastTermination: "Error", Message: "back-off 40s restarting failed container"},
	}, state.Pods, "the release's pods only, with why they fail")
	require.Equal(t, []kube.PVC{{Name: "data-shop-db-0", Phase: "Bound", Size: "1Gi"}, {Name: "uploads", Phase: "Pending", Size: "1Gi"}}, state.PVCs,
		"the release's claims and its StatefulSet's, not a look-alike name nor another release's")
	var got []string
	for _, e := range state.Events {
		got = append(got, fmt.Sprintf("%s %s %s", e.Type, e.Reason, e.Object))
	}
	require.Equal(t, []string{"Warning Reasonc Deployment/shop-web", "Warning Reasonb Pod/shop-web-1", "Normal Reasona Pod/shop-web-1",
		"Normal Reasonf ReplicaSet/shop-web-5d8f7c", "Normal Reasone PersistentVolumeClaim/data-shop-db-0"}, got,
		"the release's events, warnings first, then newest first; not another release's")
	require.Zero(t, state.EventsLeftOut)
}

func TestReleaseStateKeepsTheNewestEventsWithinItsBudget(t *testing.T) {
	t.Parallel()
	web := deployment("shop-web", "shop", "web", 1, 1)
	objects := []runtime.Object{web}
	for i := range kube.MaxEvents + 5 {
		objects = append(objects, event(fmt.Sprint("e", i), "Normal", "Deployment", "shop-web", i))
	}
	objects = append(objects, event("old-warning", "Warning", "Deployment", "shop-web", 0))
	state, err := fakeClient(objects...).ReleaseState(context.Background(), ns, "shop")
	require.NoError(t, err)
	require.Len(t, state.Events, kube.MaxEvents)
	require.Equal(t, 6, state.EventsLeftOut)
	require.Equal(t, "Reasonold-warning", state.Events[0].Reason, "a warning comes first however old")
	require.Equal(t, "Reasone24", state.Events[1].Reason, "then the newest")
}
