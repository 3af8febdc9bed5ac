package actions_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/drivers"
)

// fakeRun is what runOnFake saw: the pod as the runtime created it, the
// Secret it reads while it runs, the outcome and the cluster afterwards.
type fakeRun struct {
	pod    *corev1.Pod
	secret *corev1.Secret
	out    actions.Outcome
	client *fake.Clientset
}

// runOnFake runs an action through the pod runtime on a fake clientset,
// playing the kubelet: once the pod exists, its container ends with exit
// code. The cluster holds existing beforehand.
func runOnFake(t *testing.T, exit int32, timeout string, existing ...runtime.Object) fakeRun {
	t.Helper()
	client := fake.NewClientset(existing...)
	podRuntime := &actions.Pod{Client: client, Image: "styrmin.local/action-runner:test", StartTimeout: 10 * time.Second}
	created := make(chan *corev1.Pod, 1)
	var secret *corev1.Secret
	go func() {
		var pod *corev1.Pod
		_ = wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			p, err := client.CoreV1().Pods("shop").Get(ctx, actions.PodName("shop-db", 9), metav1.GetOptions{})
			pod = p
			return err == nil, nil
		})
		secret, _ = client.CoreV1().Secrets("shop").Get(context.Background(), actions.PodName("shop-db", 9), metav1.GetOptions{})
		created <- pod.DeepCopy()
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: actions.ContainerName, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit}}}}
		_, _ = client.CoreV1().Pods("shop").UpdateStatus(context.Background(), pod, metav1.UpdateOptions{})
	}()
	out, err := podRuntime.Run(context.Background(), backupSpec(timeout), func(actions.Line) {})
	require.NoError(t, err)
	pod := <-created
	return fakeRun{pod: pod, secret: secret, out: out, client: client}
}

// backupSpec is the run of action backup of deployment shop-db on hook step
// 9, with timeout.
func backupSpec(timeout string) actions.Spec {
	return actions.Spec{
		Action: drivers.Action{Name: "backup", Function: "actions:backup", Timeout: timeout},
		Env:    actions.Env{APIURL: "http://styrmin.styrmin.svc.cluster.local:80", Token: "sta_secret", Deployment: "shop-db", Namespace: "shop", Release: "shop-db", StepID: 9},
		Labels: map[string]string{"styrmin.io/installation": "INST", "styrmin.io/deployment": "4"},
	}
}

// A run is cancelled while the API server restarts: the first deletions of
// its pod fail. The runtime asks again until the pod is gone, rather than
// let the action run on until its deadline.
func TestACancelledRunDeletesItsPodUntilItIsGone(t *testing.T) {
	t.Parallel()
	client := fake.NewClientset()
	var deletions atomic.Int32
	client.PrependReactor("delete", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if deletions.Add(1) <= 2 {
			return true, nil, apierrors.NewServiceUnavailable("the API server restarts")
		}
		return false, nil, nil
	})
	podRuntime := &actions.Pod{Client: client, Image: "styrmin.local/action-runner:test", StartTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan actions.Outcome, 1)
	go func() {
		out, err := podRuntime.Run(ctx, backupSpec("10m"), func(actions.Line) {})
		assert.NoError(t, err)
		ended <- out
	}()
	pods := client.CoreV1().Pods("shop")
	name := actions.PodName("shop-db", 9)
	var pod *corev1.Pod
	require.Eventually(t, func() bool {
		var err error
		pod, err = pods.Get(ctx, name, metav1.GetOptions{})
		return err == nil
	}, 10*time.Second, 10*time.Millisecond, "the run creates its pod")
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: actions.ContainerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	_, err := pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err)

	cancel()
	require.Eventually(t, func() bool {
		_, err := pods.Get(context.Background(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 5*time.Second, 50*time.Millisecond, "the pod is gone soon after the cancellation, though its first deletions failed")
	select {
	case out := <-ended:
		require.True(t, out.Canceled)
	case <-time.After(time.Minute):
		t.Fatal("the run did not end once its pod was gone")
	}
	require.GreaterOrEqual(t, deletions.Load(), int32(3), "the deletion was asked again")
}

func TestPodSpecIsLockedDown(t *testing.T) {
	t.Parallel()
	run := runOnFake(t, 0, "90s")
	pod, client := run.pod, run.client
	require.Equal(t, 0, run.out.ExitCode)

	require.Equal(t, "shop-db-action-9", pod.Name)
	require.Equal(t, "shop", pod.Namespace)
	require.Equal(t, map[string]string{"app.kubernetes.io/managed-by": "styrmin", "styrmin.io/action-run": "9",
		"styrmin.io/installation": "INST", "styrmin.io/deployment": "4"}, pod.Labels)
	spec := pod.Spec
	require.Equal(t, "shop-db-action", spec.ServiceAccountName)
	require.False(t, *spec.AutomountServiceAccountToken)
	require.False(t, *spec.EnableServiceLinks)
	require.Equal(t, corev1.RestartPolicyNever, spec.RestartPolicy)
	require.Equal(t, int64(90), *spec.ActiveDeadlineSeconds, "the action's timeout")
	require.True(t, *spec.SecurityContext.RunAsNonRoot)
	require.Equal(t, int64(actions.RunnerUID), *spec.SecurityContext.RunAsUser)
	require.Len(t, spec.Containers, 1)
	c := spec.Containers[0]
	require.Equal(t, "styrmin.local/action-runner:test", c.Image)
	require.True(t, *c.SecurityContext.RunAsNonRoot)
	require.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	require.False(t, *c.SecurityContext.Privileged)
	require.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	require.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop)
	require.Empty(t, c.SecurityContext.Capabilities.Add)
	require.Equal(t, resource.MustParse("512Mi"), c.Resources.Limits[corev1.ResourceMemory])
	require.Equal(t, resource.MustParse("1"), c.Resources.Limits[corev1.ResourceCPU])
	require.Equal(t, resource.MustParse("100m"), c.Resources.Requests[corev1.ResourceCPU])
	env := map[string]string{}
	for _, e := range c.Env {
		if e.Name == actions.TokenVariable {
			require.Equal(t, &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: pod.Name}, Key: "token"},
				e.ValueFrom.SecretKeyRef, "the token comes from the run's Secret")
			continue
		}
		require.Nil(t, e.ValueFrom, "%s comes from nowhere but the spec", e.Name)
		env[e.Name] = e.Value
	}
	podJSON, err := json.Marshal(pod)
	require.NoError(t, err)
	require.NotContains(t, string(podJSON), "sta_secret", "whoever reads the pod does not read the token")
	require.Equal(t, []byte("sta_secret"), run.secret.Data["token"], "the Secret holds it while the run lasts")
	require.Equal(t, pod.Labels, run.secret.Labels)
	require.Equal(t, "http://styrmin.styrmin.svc.cluster.local:80", env["STYRMIN_API_URL"])
	require.Equal(t, "actions:backup", env["STYRMIN_ACTION_FUNCTION"])
	require.Equal(t, "9", env["STYRMIN_HOOK_STEP"])
	for _, v := range spec.Volumes {
		require.NotNil(t, v.EmptyDir, "volume %s: the pod mounts nothing of the node's or the cluster's", v.Name)
	}

	sa, err := client.CoreV1().ServiceAccounts("shop").Get(context.Background(), "shop-db-action", metav1.GetOptions{})
	require.NoError(t, err)
	require.False(t, *sa.AutomountServiceAccountToken)
	require.Equal(t, "styrmin", sa.Labels["app.kubernetes.io/managed-by"])
	require.Equal(t, "4", sa.Labels["styrmin.io/deployment"])

	_, err = client.CoreV1().Pods("shop").Get(context.Background(), pod.Name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the pod is deleted at the end")
	_, err = client.CoreV1().Secrets("shop").Get(context.Background(), pod.Name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "and so is its Secret")
}

func TestPodExitCodeComesFromTheContainer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		exit int32
		want int
	}{{0, 0}, {1, 1}, {2, 2}, {143, -1}, {137, -1}} {
		run := runOnFake(t, c.exit, "1m")
		require.Equal(t, c.want, run.out.ExitCode, "container exit %d", c.exit)
	}
}

func TestPodDeadlineIsTheTimeoutInWholeSeconds(t *testing.T) {
	t.Parallel()
	run := runOnFake(t, 0, "1500ms")
	require.Equal(t, int64(2), *run.pod.Spec.ActiveDeadlineSeconds)
}

func TestPodRefusesAServiceAccountStyrminDidNotCreate(t *testing.T) {
	t.Parallel()
	client := fake.NewClientset(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "shop-db-action", Namespace: "shop"}})
	podRuntime := &actions.Pod{Client: client, Image: "styrmin.local/action-runner:test"}
	_, err := podRuntime.Run(context.Background(), actions.Spec{
		Action: drivers.Action{Name: "backup", Function: "actions:backup"},
		Env:    actions.Env{Namespace: "shop", Release: "shop-db", StepID: 9},
		Labels: map[string]string{"styrmin.io/deployment": "4"},
	}, func(actions.Line) {})
	require.ErrorContains(t, err, "the service account shop-db-action in namespace shop was not created by Styrmin for this deployment")
	pods, err := client.CoreV1().Pods("shop").List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Empty(t, pods.Items, "no pod is created")
}

// runMeta is the name and labels of the pod and Secret of an earlier action
// run on hook step stepID of the deployment whose id label is deployment,
// created at created.
func runMeta(stepID int64, deployment string, created time.Time) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: actions.PodName("shop-db", stepID), Namespace: "shop", CreationTimestamp: metav1.NewTime(created),
		Labels: map[string]string{
			actions.ManagedByLabel: actions.ManagedBy, actions.RunLabel: strconv.FormatInt(stepID, 10),
			"styrmin.io/installation": "INST", "styrmin.io/deployment": deployment,
		}}
}

// actionPod is the pod of an earlier run, in phase.
func actionPod(stepID int64, deployment string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: runMeta(stepID, deployment, time.Now().Add(-time.Hour)), Status: corev1.PodStatus{Phase: phase}}
}

// tokenSecret is the token Secret of an earlier run, created at created.
func tokenSecret(stepID int64, deployment string, created time.Time) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: runMeta(stepID, deployment, created), Data: map[string][]byte{"token": []byte("sta_old")}}
}

// names are the names of a list's items.
func names[T any, P interface {
	*T
	metav1.Object
}](items []T) []string {
	out := make([]string, 0, len(items))
	for i := range items {
		out = append(out, P(&items[i]).GetName())
	}
	return out
}

// A worker that dies mid-run leaves its pod, which its deadline stops but
// nothing deletes, and its token's Secret: the deployment's next run
// removes both. It leaves alone a pod still running (another run's) and its
// Secret, a Secret just created (a run about to create its pod), and
// another deployment's.
func TestARunRemovesThePodsAndSecretsOfEarlierRuns(t *testing.T) {
	t.Parallel()
	hourAgo := time.Now().Add(-time.Hour)
	run := runOnFake(t, 0, "1m",
		actionPod(5, "4", corev1.PodFailed), tokenSecret(5, "4", hourAgo),
		actionPod(6, "4", corev1.PodSucceeded),
		actionPod(7, "4", corev1.PodRunning), tokenSecret(7, "4", hourAgo),
		tokenSecret(3, "4", hourAgo), tokenSecret(4, "4", time.Now()),
		actionPod(8, "5", corev1.PodFailed), tokenSecret(8, "5", hourAgo))
	ctx := context.Background()
	pods, err := run.client.CoreV1().Pods("shop").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{actions.PodName("shop-db", 7), actions.PodName("shop-db", 8)}, names(pods.Items))
	secrets, err := run.client.CoreV1().Secrets("shop").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{actions.PodName("shop-db", 4), actions.PodName("shop-db", 7), actions.PodName("shop-db", 8)}, names(secrets.Items))
}

// An operator raises the action pods' limits (--action-pod-cpu,
// --action-pod-memory) for actions that need more; a limit below a request
// lowers the request; what is not a positive quantity is refused, naming it.
func TestPodResourcesFollowTheLimitsGiven(t *testing.T) {
	t.Parallel()
	r, err := actions.PodResources("", "")
	require.NoError(t, err)
	require.Equal(t, actions.DefaultResources, r, "nothing given: the defaults")

	r, err = actions.PodResources("2", "2Gi")
	require.NoError(t, err)
	require.Equal(t, resource.MustParse("2"), r.Limits[corev1.ResourceCPU])
	require.Equal(t, resource.MustParse("2Gi"), r.Limits[corev1.ResourceMemory])
	require.Equal(t, actions.DefaultResources.Requests, r.Requests)

	r, err = actions.PodResources("50m", "64Mi")
	require.NoError(t, err)
	require.Equal(t, r.Limits, r.Requests, "requests above the limits are lowered to them")
	require.Equal(t, resource.MustParse("128Mi"), actions.DefaultResources.Requests[corev1.ResourceMemory], "the defaults are left as they were")

	for _, bad := range [][2]string{{"lots", ""}, {"", "0"}, {"-1", ""}, {"", "1Gb"}} {
		_, err := actions.PodResources(bad[0], bad[1])
		require.ErrorContains(t, err, "is not a positive quantity", "%q", bad)
	}
}
