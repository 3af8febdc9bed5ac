package controlplane

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/styrmin/styrmin/localkube/substitute"
)

// startCluster runs the cluster of layout with opts until the test ends,
// and returns a client of it once it is ready.
func startCluster(t *testing.T, layout Layout, opts Options) kubernetes.Interface {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	stopped := make(chan struct{})
	var stopErr error
	go func() {
		defer close(stopped)
		stopErr = Run(ctx, layout, opts, t.Logf, func(ctx context.Context, kubeconfig string) error {
			ready <- kubeconfig
			<-ctx.Done()
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
		if stopErr != nil {
			t.Errorf("stop: %v", stopErr)
		}
	})
	var kubeconfig string
	select {
	case kubeconfig = <-ready:
	case <-stopped:
		t.Fatalf("the cluster stopped before it was ready: %v", stopErr)
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// TestImageSubstitutionRewritesPodsThroughTheAPI creates pods through the
// API server of a cluster that runs the webhook, and reads back what the
// API server stored: the substitutes, PullNever, the annotation; a pod of
// a Deployment likewise; a pod whose substitutions cannot be recorded is
// refused with the reason.
func TestImageSubstitutionRewritesPodsThroughTheAPI(t *testing.T) {
	rules := []substitute.Rule{{Repository: "docker.io/library/postgres", Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.14"}}
	layout := clusterFolder(t, "a whole local control plane", "kube-apiserver", "`make cluster`")
	client := startCluster(t, layout, Options{SubstituteImages: true, ImageRules: rules})
	ctx := context.Background()
	pods := client.CoreV1().Pods(metav1.NamespaceDefault)

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "mixed"},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "migrate", Image: "postgres:16.4"}},
			Containers: []corev1.Container{
				{Name: "db", Image: "docker.io/library/postgres:16.4", ImagePullPolicy: corev1.PullAlways},
				{Name: "local", Image: "styrmin.local/hello:1"},
				{Name: "cache", Image: "redis:7.2"},
			},
		},
	}
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := pods.Get(ctx, "mixed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		container     corev1.Container
		image         string
		pullPolicyNow corev1.PullPolicy
	}{
		{got.Spec.InitContainers[0], "styrmin.local/postgres:15", corev1.PullNever},
		{got.Spec.Containers[0], "styrmin.local/postgres:15", corev1.PullNever},
		{got.Spec.Containers[1], "styrmin.local/hello:1", corev1.PullIfNotPresent},
		{got.Spec.Containers[2], "styrmin.local/no-substitute/redis:7.2", corev1.PullNever},
	} {
		if c.container.Image != c.image || c.container.ImagePullPolicy != c.pullPolicyNow {
			t.Errorf("container %s runs %s (pull %s), want %s (pull %s)", c.container.Name, c.container.Image, c.container.ImagePullPolicy, c.image, c.pullPolicyNow)
		}
	}
	var entries []substitute.Substitution
	if err := json.Unmarshal([]byte(got.Annotations[substitute.Annotation]), &entries); err != nil {
		t.Fatalf("annotation %q: %v", got.Annotations[substitute.Annotation], err)
	}
	want := []substitute.Substitution{
		{Container: "migrate", Requested: "postgres:16.4", Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.14"},
		{Container: "db", Requested: "docker.io/library/postgres:16.4", Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.14"},
		{Container: "cache", Requested: "redis:7.2", Runs: "no image on the local cluster stands in for redis:7.2; the local cluster builds postgres"},
	}
	if len(entries) != len(want) {
		t.Fatalf("annotation %+v, want %+v", entries, want)
	}
	for i := range want {
		if entries[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, entries[i], want[i])
		}
	}

	deploymentPodIsSubstituted(t, client)

	many := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "many"}}
	for i := range 3000 {
		many.Spec.Containers = append(many.Spec.Containers, corev1.Container{Name: "c" + strings.Repeat("x", i%50) + string(rune('a'+i%26)), Image: "postgres:16"})
	}
	_, err = pods.Create(ctx, many, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "could not for this pod") {
		t.Errorf("a pod of 3000 containers: error %v, want the webhook's refusal", err)
	}
}

// deploymentPodIsSubstituted checks that a pod the ReplicaSet controller
// creates goes through the webhook too.
func deploymentPodIsSubstituted(t *testing.T, client kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	labels := map[string]string{"app": "db"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "postgres:16.4"}}},
			},
		},
	}
	if _, err := client.AppsV1().Deployments(metav1.NamespaceDefault).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var image string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: "app=db"})
		if err != nil || len(list.Items) == 0 {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		image = list.Items[0].Spec.Containers[0].Image
		return true, nil
	})
	if err != nil {
		t.Fatalf("the Deployment's pod was not created: %v", err)
	}
	if image != "styrmin.local/postgres:15" {
		t.Errorf("the Deployment's pod runs %s, want styrmin.local/postgres:15", image)
	}
}

// TestRealNodeSubstitutesImages: on a real node, a pod that requests an
// image of an extra rule (hello, standing for the pause image) runs the
// local image the rule names, beside the rules of the images the node
// builds, and a pod that requests an image without rule fails with
// ErrImageNeverPull naming styrmin.local/no-substitute/..., never pulled.
func TestRealNodeSubstitutesImages(t *testing.T) {
	layout := nodeCluster(t)
	rules := []substitute.Rule{{Repository: "docker.io/library/hello", Image: PauseImage, Runs: "the local cluster's pause program"}}
	client := startCluster(t, layout, Options{RealNode: true, SubstituteImages: true, ImageRules: rules})
	ctx := context.Background()
	pods := client.CoreV1().Pods(metav1.NamespaceDefault)
	onRealNode := func(name, image string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{
				NodeSelector: map[string]string{RealNodeLabel: RealNodeLabelValue},
				Containers:   []corev1.Container{{Name: "main", Image: image, ImagePullPolicy: corev1.PullAlways}},
			},
		}
	}
	for _, p := range []*corev1.Pod{onRealNode("substituted", "hello:1.36"), onRealNode("unsubstituted", "foo:1")} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	podState(t, pods, "substituted", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	unsubstituted := podState(t, pods, "unsubstituted", func(p *corev1.Pod) bool {
		s := p.Status.ContainerStatuses
		return len(s) == 1 && s[0].State.Waiting != nil && s[0].State.Waiting.Reason == "ErrImageNeverPull"
	})
	if msg := unsubstituted.Status.ContainerStatuses[0].State.Waiting.Message; !strings.Contains(msg, "styrmin.local/no-substitute/foo:1") {
		t.Errorf("the waiting message %q does not name the missing substitute", msg)
	}
}

// podState waits until the pod name is as want says, and returns it.
func podState(t *testing.T, pods corev1client.PodInterface, name string, want func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	last := &corev1.Pod{}
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		last = p
		return want(p), nil
	})
	if err != nil {
		t.Fatalf("pod %s: %v (status %+v)", name, err, last.Status)
	}
	return last
}
