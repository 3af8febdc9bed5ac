package devcluster_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart/loader"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
)

// setup connects to the shared local cluster and gives the test its own namespace.
func setup(t *testing.T) (client *kube.Client, namespace string) {
	t.Helper()
	client, err := kube.Connect(kubetest.Kubeconfig(t), "")
	require.NoError(t, err)
	namespace = "smoke-" + rand.String(6)
	ctx := context.Background()
	_, err = client.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		err := client.Clientset.CoreV1().Namespaces().Delete(context.Background(), namespace, metav1.DeleteOptions{})
		require.NoError(t, err)
	})
	// Pods are refused until the namespace's default service account exists.
	eventually(t, "default service account in "+namespace, func(ctx context.Context) (bool, error) {
		_, err := client.Clientset.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, ignoreNotFound(err)
	})
	return client, namespace
}

func eventually(t *testing.T, what string, done func(ctx context.Context) (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, done)
	require.NoError(t, err, "waiting for %s", what)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func TestNodeIsReadyAndVersionReported(t *testing.T) {
	t.Parallel()
	client, _ := setup(t)
	nodes, err := client.Clientset.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: realNodeLabel + "=real"})
	require.NoError(t, err)
	require.Len(t, nodes.Items, 1)
	ready := false
	for _, cond := range nodes.Items[0].Status.Conditions {
		if cond.Type == corev1.NodeReady {
			ready = cond.Status == corev1.ConditionTrue
		}
	}
	require.True(t, ready, "node %s conditions: %v", nodes.Items[0].Name, nodes.Items[0].Status.Conditions)

	health := client.Health(context.Background(), 5*time.Second)
	require.True(t, health.Reachable, health.Error)
	require.Equal(t, "v1.37.2", health.Version)
}

func TestDeploymentReachesReadyReplicas(t *testing.T) {
	t.Parallel()
	client, ns := setup(t)
	labels := map[string]string{"app": "web"}
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	_, err := client.Clientset.AppsV1().Deployments(ns).Create(context.Background(), deployment, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, "2 ready replicas", func(ctx context.Context) (bool, error) {
		got, err := client.Clientset.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Status.ReadyReplicas == 2, err
	})
}

func TestActionJobRunsItsCommand(t *testing.T) {
	t.Parallel()
	client, ns := setup(t)
	tests := []struct {
		name      string
		script    string
		condition batchv1.JobConditionType
		exitCode  int32
		tailLines *int64
		wantLog   string
	}{
		{"success", "echo first line; echo second line; exit 0", batchv1.JobComplete, 0, nil, "first line\nsecond line\n"},
		{"stderr", "echo to stderr >&2", batchv1.JobComplete, 0, nil, "to stderr\n"},
		{"failure", "echo about to fail; exit 1", batchv1.JobFailed, 1, nil, "about to fail\n"},
		{"exit-code-kept", "exit 3", batchv1.JobFailed, 3, nil, ""},
		{"long-log-tail", "seq 1 5000", batchv1.JobComplete, 0, ptr.To[int64](3), "4998\n4999\n5000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			job := actionJob(tt.name, tt.script)
			_, err := client.Clientset.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
			require.NoError(t, err)
			var ended batchv1.JobCondition
			eventually(t, "job "+tt.name+" to end", func(ctx context.Context) (bool, error) {
				got, err := client.Clientset.BatchV1().Jobs(ns).Get(ctx, tt.name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				for _, c := range got.Status.Conditions {
					if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
						ended = c
						return true, nil
					}
				}
				return false, nil
			})
			require.Equal(t, tt.condition, ended.Type, "job ended %s: %s", ended.Type, ended.Message)
			pods, err := client.Clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + tt.name})
			require.NoError(t, err)
			require.Len(t, pods.Items, 1)
			pod := pods.Items[0]
			require.Len(t, pod.Status.ContainerStatuses, 1)
			terminated := pod.Status.ContainerStatuses[0].State.Terminated
			require.NotNil(t, terminated, "container state: %+v", pod.Status.ContainerStatuses[0].State)
			require.Equal(t, tt.exitCode, terminated.ExitCode)

			logs, err := client.Clientset.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{TailLines: tt.tailLines}).DoRaw(ctx)
			require.NoError(t, err)
			require.Equal(t, tt.wantLog, string(logs))
		})
	}
}

func actionJob(name, script string) *batchv1.Job {
	labels := map[string]string{kube.ActionJobLabel: kube.ActionJobLabelValue}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:         corev1.RestartPolicyNever,
					ActiveDeadlineSeconds: ptr.To[int64](60),
					Containers: []corev1.Container{{
						Name:    "action",
						Image:   "busybox:1.36",
						Command: []string{"sh", "-c", script},
					}},
				},
			},
		},
	}
}

func TestHelmInstallUpgradeUninstallBundledChart(t *testing.T) {
	t.Parallel()
	client, ns := setup(t)
	ctx := context.Background()
	chart, err := loader.Load(filepath.Join("..", "drivers", "bundled", "hello-web", "chart"))
	require.NoError(t, err)
	releases := releaseClient(t, client)

	rel, err := releases.Install(ctx, release.InstallOptions{
		Namespace: ns, Name: "hello", Owner: owner, Chart: chart, Values: map[string]any{"replicaCount": 2}, Wait: true, Timeout: 2 * time.Minute,
	})
	require.NoError(t, err)
	require.Equal(t, release.StatusDeployed, rel.Status)
	requireReadyDeployment(t, client, ns, 2)

	rel, err = releases.Upgrade(ctx, release.UpgradeOptions{
		Namespace: ns, Name: "hello", Owner: owner, Chart: chart, Values: map[string]any{"replicaCount": 3, "site": map[string]any{"title": "Upgraded"}},
		Wait: true, Timeout: 2 * time.Minute,
	})
	require.NoError(t, err)
	require.Equal(t, 2, rel.Number)
	requireReadyDeployment(t, client, ns, 3)

	_, err = releases.Uninstall(ctx, release.UninstallOptions{Namespace: ns, Name: "hello", Owner: owner, Wait: true, Timeout: 2 * time.Minute})
	require.NoError(t, err)
	deployments, err := client.Clientset.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Empty(t, deployments.Items)
}

// releaseClient is Styrmin's release layer on the cluster of client.
func releaseClient(t *testing.T, client *kube.Client) *release.Client {
	t.Helper()
	releases, err := release.New(client.Config, release.Options{}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return releases
}

// requireReadyDeployment waits until the namespace's one Deployment has
// rolled out: replicas pods, all of its current template and ready. Helm's
// wait ends when the new ReplicaSet's pods are ready, which can be before
// the Deployment controller scales the old one down: for that moment the
// Deployment counts the old pods too.
func requireReadyDeployment(t *testing.T, client *kube.Client, ns string, replicas int32) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		deployments, err := client.Clientset.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if len(deployments.Items) != 1 {
			last = fmt.Sprintf("%d deployments", len(deployments.Items))
			return false, nil
		}
		d := deployments.Items[0]
		last = fmt.Sprintf("generation %d, status %+v", d.Generation, d.Status)
		return d.Status.ObservedGeneration == d.Generation && d.Status.Replicas == replicas &&
			d.Status.UpdatedReplicas == replicas && d.Status.ReadyReplicas == replicas, nil
	})
	require.NoError(t, err, "the Deployment rolls out %d ready pods; last seen: %s", replicas, last)
}
