package kube_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/kube"
)

const ns = "shop"

// fakeClient is a kube.Client over client-go's fake clientset holding
// objects and, for each Deployment among them, the ReplicaSet of its current
// template with the pods its status counts (replicaSetOf): the state its
// controllers settle in.
func fakeClient(objects ...runtime.Object) *kube.Client {
	for _, o := range objects {
		if d, ok := o.(*appsv1.Deployment); ok {
			objects = append(objects, replicaSetOf(d))
		}
	}
	return &kube.Client{Clientset: fake.NewClientset(objects...)}
}

// replicaSetOf is the ReplicaSet that runs d's current template, having seen
// its latest change, with as many pods ready as d's status says.
func replicaSetOf(d *appsv1.Deployment) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: d.Name + "-5d8f7c", Namespace: d.Namespace, Generation: 1,
			Annotations:     map[string]string{"deployment.kubernetes.io/revision": "1"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec:   appsv1.ReplicaSetSpec{Replicas: d.Spec.Replicas, Template: d.Spec.Template},
		Status: appsv1.ReplicaSetStatus{ObservedGeneration: 1, Replicas: d.Status.ReadyReplicas, ReadyReplicas: d.Status.ReadyReplicas},
	}
}

// meta is the metadata of an object of release, with generation 1.
func meta(name, release string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, Generation: 1, Annotations: map[string]string{kube.ReleaseNameAnnotation: release, kube.ReleaseNamespaceAnnotation: ns}}
}

// deployment is a Deployment of release whose pods carry component=comp, with
// replicas of which ready are ready, at revision 1.
func deployment(name, release, comp string, replicas, ready int32) *appsv1.Deployment {
	m := meta(name, release)
	m.UID = types.UID("uid-" + name)
	m.Annotations["deployment.kubernetes.io/revision"] = "1"
	return &appsv1.Deployment{
		ObjectMeta: m,
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"component": comp, "app": release}}},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: ready},
	}
}

// statefulSet is a StatefulSet of release whose pods carry component=comp.
func statefulSet(name, release, comp string, replicas, ready int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: meta(name, release),
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(replicas),
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"component": comp, "app": release}}},
		},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: ready},
	}
}

// component selects pods with component=name.
func component(name string, defaultReplicas *int) drivers.Component {
	return drivers.Component{Name: name, Selector: drivers.LabelSelector{MatchLabels: map[string]string{"component": name}}, Defaults: drivers.ComponentDefaults{Replicas: defaultReplicas}}
}

// summary lists "Kind/name replicas/ready" of workloads.
func summary(ws []kube.Workload) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmt.Sprintf("%s/%s %d/%d", w.Kind, w.Name, w.Replicas, w.ReadyReplicas))
	}
	return out
}

func TestComponentWorkloadsSelectTheReleasesWorkloadsByPodLabels(t *testing.T) {
	t.Parallel()
	client := fakeClient(
		deployment("web", "shop", "web", 2, 2),
		statefulSet("db", "shop", "db", 1, 1),
		deployment("web-other-release", "other", "web", 1, 1),
		deployment("worker", "shop", "worker", 1, 0),
		statefulSet("web-cache", "shop", "web", 3, 1),
	)
	got, err := client.ComponentWorkloads(context.Background(), ns, "shop", component("web", nil))
	require.NoError(t, err)
	require.Equal(t, []string{"Deployment/web 2/2", "StatefulSet/web-cache 3/1"}, summary(got))
	require.True(t, got[0].Ready())
	require.Equal(t, "StatefulSet web-cache: 1 of 3 replicas ready", got[1].Waiting)

	got, err = client.ComponentWorkloads(context.Background(), ns, "shop", component("nothing", nil))
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestAStopLeavesWorkloadsOfAReleaseOfTheSameNameElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	elsewhere := deployment("web-of-shop-in-prod", "shop", "web", 2, 2)
	elsewhere.Annotations[kube.ReleaseNamespaceAnnotation] = "prod" // Helm made it for release shop of namespace prod
	client := fakeClient(deployment("web", "shop", "web", 3, 3), elsewhere)

	stopped, err := client.ScaleComponent(ctx, ns, "shop", component("web", nil), 0)

	require.NoError(t, err)
	require.Equal(t, []string{"Deployment/web 3/3"}, summary(stopped))
	untouched, err := client.Clientset.AppsV1().Deployments(ns).Get(ctx, "web-of-shop-in-prod", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(2), *untouched.Spec.Replicas)
}

func TestStopAndStartComponent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		defaults  *int
		wantStart []string
	}{
		{"start restores the replicas each workload had", nil, []string{"Deployment/web 3/3", "StatefulSet/web-cache 2/2"}},
		{"remembered replicas win over the component's default", ptr.To(1), []string{"Deployment/web 3/3", "StatefulSet/web-cache 2/2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			client := fakeClient(deployment("web", "shop", "web", 3, 3), statefulSet("web-cache", "shop", "web", 2, 2), deployment("db", "shop", "db", 1, 1))
			comp := component("web", tt.defaults)

			before, err := client.ScaleComponent(ctx, ns, "shop", comp, 0)
			require.NoError(t, err)
			require.Equal(t, []string{"Deployment/web 3/3", "StatefulSet/web-cache 2/2"}, summary(before))
			stopped, err := client.ComponentWorkloads(ctx, ns, "shop", comp)
			require.NoError(t, err)
			require.Equal(t, []int32{0, 0}, []int32{stopped[0].Replicas, stopped[1].Replicas})
			db, err := client.ComponentWorkloads(ctx, ns, "shop", component("db", nil))
			require.NoError(t, err)
			require.Equal(t, int32(1), db[0].Replicas, "other components keep running")

			started, err := client.StartComponent(ctx, ns, "shop", comp, before)
			require.NoError(t, err)
			require.Equal(t, tt.wantStart, summary(started))
			now, err := client.ComponentWorkloads(ctx, ns, "shop", comp)
			require.NoError(t, err)
			require.Equal(t, []int32{started[0].Replicas, started[1].Replicas}, []int32{now[0].Replicas, now[1].Replicas})
		})
	}
}

func TestStartReplicas(t *testing.T) {
	t.Parallel()
	web := kube.Workload{Kind: kube.KindDeployment, Name: "web"}
	tests := []struct {
		name     string
		defaults *int
		stopped  []kube.Workload
		want     int32
	}{
		{"remembered replicas win over the default", ptr.To(2), []kube.Workload{{Kind: kube.KindDeployment, Name: "web", Replicas: 5}}, 5},
		{"default when nothing is remembered", ptr.To(2), nil, 2},
		{"a start never leaves a component at zero", ptr.To(0), nil, 1},
		{"remembered replicas", nil, []kube.Workload{{Kind: kube.KindDeployment, Name: "web", Replicas: 5}}, 5},
		{"same name, other kind is not remembered", nil, []kube.Workload{{Kind: kube.KindStatefulSet, Name: "web", Replicas: 5}}, 1},
		{"remembered as stopped already", nil, []kube.Workload{{Kind: kube.KindDeployment, Name: "web", Replicas: 0}}, 1},
		{"nothing known", nil, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, kube.StartReplicas(component("web", tt.defaults), web, tt.stopped))
		})
	}
}

func TestScaleComponentWithoutWorkloads(t *testing.T) {
	t.Parallel()
	client := fakeClient(deployment("web", "shop", "web", 1, 1))
	_, err := client.ScaleComponent(context.Background(), ns, "shop", component("db", nil), 0)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	require.Equal(t, "Component db matches no Deployment or StatefulSet of release shop.", styrmin.ErrorMessage(err))
	_, err = client.StartComponent(context.Background(), ns, "shop", component("db", nil), nil)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

func TestComponentsReady(t *testing.T) {
	t.Parallel()
	rollingOut := deployment("api", "shop", "api", 2, 2)
	rollingOut.Generation = 2
	oldPods := deployment("worker", "shop", "worker", 1, 1)
	oldPods.Status.Replicas = 2
	updating := statefulSet("db", "shop", "db", 3, 3)
	updating.Status.UpdatedReplicas = 1
	onDelete := statefulSet("cache", "shop", "cache", 1, 1)
	onDelete.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType
	onDelete.Status.UpdatedReplicas = 0
	client := fakeClient(
		deployment("web", "shop", "web", 2, 2),
		deployment("stopped", "shop", "stopped", 0, 0),
		deployment("half", "shop", "half", 2, 1),
		rollingOut, oldPods, updating, onDelete,
	)
	tests := []struct {
		component string
		waiting   string
	}{
		{"web", ""},
		{"stopped", ""},
		{"cache", ""},
		{"half", "Deployment half: 1 of 2 replicas ready"},
		{"api", "Deployment api: its controller has not seen the latest change yet"},
		{"worker", "Deployment worker: 1 old replicas still terminating"},
		{"db", "StatefulSet db: 1 of 3 replicas updated"},
		{"missing", "no Deployment or StatefulSet of release shop matches its selector"},
	}
	for _, tt := range tests {
		t.Run(tt.component, func(t *testing.T) {
			t.Parallel()
			statuses, all, err := client.ComponentsReady(context.Background(), ns, "shop", []drivers.Component{component(tt.component, nil)})
			require.NoError(t, err)
			require.Len(t, statuses, 1)
			require.Equal(t, tt.component, statuses[0].Component)
			require.Equal(t, tt.waiting, statuses[0].Waiting)
			require.Equal(t, tt.waiting == "", statuses[0].Ready)
			require.Equal(t, tt.waiting == "", all)
		})
	}
}

// A Deployment's status is summed from its ReplicaSets' statuses, which can
// lag: stopped, then started at once, a Deployment's ReplicaSet still counts
// as ready the pods its controller is deleting, and so does the Deployment.
// Its component is ready only once the ReplicaSet has seen the start and its
// own new pods are ready.
func TestADeploymentIsReadyOnlyWhenItsReplicaSetHasSeenTheLatestChange(t *testing.T) {
	t.Parallel()
	web := deployment("web", "shop", "web", 3, 3)
	web.Generation, web.Status.ObservedGeneration = 3, 3 // installed, stopped, started
	current := replicaSetOf(web)
	current.Generation = 3 // scaled to 0, then to 3
	current.Status.ObservedGeneration = 2
	wrongRevision := replicaSetOf(web)
	wrongRevision.Name, wrongRevision.Annotations = "web-old", map[string]string{"deployment.kubernetes.io/revision": "0"}
	notOwned := replicaSetOf(web)
	notOwned.Name, notOwned.OwnerReferences = "web-orphan", nil
	tests := []struct {
		name        string
		replicaSets []runtime.Object
		waiting     string
	}{
		{"the stop is all it has seen", []runtime.Object{current}, "Deployment web: the controller of its ReplicaSet web-5d8f7c has not seen the latest change yet"},
		{"it has seen the start", []runtime.Object{seen(current, 0)}, "Deployment web: 0 of 3 replicas ready"},
		{"its new pods are ready", []runtime.Object{seen(current, 3)}, ""},
		{"only an older revision's", []runtime.Object{wrongRevision}, "Deployment web: its controller has not created the ReplicaSet of its current template yet"},
		{"only someone else's", []runtime.Object{notOwned}, "Deployment web: its controller has not created the ReplicaSet of its current template yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := &kube.Client{Clientset: fake.NewClientset(append(tt.replicaSets, web)...)}
			statuses, ready, err := client.ComponentsReady(context.Background(), ns, "shop", []drivers.Component{component("web", nil)})
			require.NoError(t, err)
			require.Equal(t, tt.waiting, statuses[0].Waiting)
			require.Equal(t, tt.waiting == "", ready)
		})
	}
}

// A stop has ended when its components' pods are gone, not when their
// workloads are scaled to 0: a pod being deleted runs on for its grace period.
func TestWaitComponentsStoppedWaitsForThePodsToBeGone(t *testing.T) {
	t.Parallel()
	web := deployment("web", "shop", "web", 0, 0)
	web.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "web"}}
	db := statefulSet("db", "shop", "db", 0, 0)
	db.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"component": "db"}}
	pod := func(name, comp string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"component": comp}}}
	}
	client := fakeClient(web, db, pod("web-1", "web"), pod("db-0", "db"), pod("cache-0", "cache"))
	comps := []drivers.Component{component("web", nil), component("db", nil)}

	err := client.WaitComponentsStopped(context.Background(), ns, "shop", comps, 1500*time.Millisecond)
	require.Equal(t, styrmin.EUNAVAILABLE, styrmin.ErrorCode(err), "%v", err)
	require.Equal(t, "Release shop has not stopped after 1.5s: pods web-1, db-0 still run.", styrmin.ErrorMessage(err))

	pods := client.Clientset.CoreV1().Pods(ns)
	require.NoError(t, pods.Delete(context.Background(), "web-1", metav1.DeleteOptions{}))
	require.NoError(t, pods.Delete(context.Background(), "db-0", metav1.DeleteOptions{}))
	require.NoError(t, client.WaitComponentsStopped(context.Background(), ns, "shop", comps, time.Minute), "another component's pod does not count")
}

// seen is rs once its controller has seen its latest change, with ready pods ready.
func seen(rs *appsv1.ReplicaSet, ready int32) *appsv1.ReplicaSet {
	rs = rs.DeepCopy()
	rs.Status.ObservedGeneration, rs.Status.Replicas, rs.Status.ReadyReplicas = rs.Generation, ready, ready
	return rs
}

func TestWaitComponentsReadyNamesWhatIsNotReady(t *testing.T) {
	t.Parallel()
	client := fakeClient(deployment("web", "shop", "web", 1, 1), statefulSet("db", "shop", "db", 1, 0))
	comps := []drivers.Component{component("web", nil), component("db", nil)}

	_, err := client.WaitComponentsReady(context.Background(), ns, "shop", comps, 1500*time.Millisecond)
	require.Equal(t, styrmin.EUNAVAILABLE, styrmin.ErrorCode(err), "%v", err)
	require.Equal(t, "Release shop is not ready after 1.5s: component db (StatefulSet db: 0 of 1 replicas ready).", styrmin.ErrorMessage(err))

	statuses, err := client.WaitComponentsReady(context.Background(), ns, "shop", comps[:1], time.Minute)
	require.NoError(t, err)
	require.True(t, statuses[0].Ready)
}
