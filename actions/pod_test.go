package actions_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/drivers"
)

// runOnFake runs an action through the pod runtime on a fake clientset,
// playing the kubelet: once the pod exists, its container ends with exit
// code. The cluster holds existing beforehand. It returns the pod as the
// runtime created it, and the outcome.
func runOnFake(t *testing.T, exit int32, timeout string, existing ...runtime.Object) (*corev1.Pod, actions.Outcome, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(existing...)
	podRuntime := &actions.Pod{Client: client, Image: "styrmin.local/action-runner:test", StartTimeout: 10 * time.Second}
	created := make(chan *corev1.Pod, 1)
	go func() {
		var pod *corev1.Pod
		_ = wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			p, err := client.CoreV1().Pods("shop").Get(ctx, actions.PodName("shop-db", 9), metav1.GetOptions{})
			pod = p
			return err == nil, nil
		})
		created <- pod.DeepCopy()
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: actions.ContainerName, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit}}}}
		_, _ = client.CoreV1().Pods("shop").UpdateStatus(context.Background(), pod, metav1.UpdateOptions{})
	}()
	out, err := podRuntime.Run(context.Background(), actions.Spec{
		Action: drivers.Action{Name: "backup", Function: "actions:backup", Timeout: timeout},
		Env:    actions.Env{APIURL: "http://styrmin.styrmin.svc.cluster.local:80", Token: "sta_secret", Deployment: "shop-db", Namespace: "shop", Release: "shop-db", StepID: 9},
		Labels: map[string]string{"styrmin.io/installation": "INST", "styrmin.io/deployment": "4"},
	}, func(actions.Line) {})
	require.NoError(t, err)
	return <-created, out, client
}

func TestPodSpecIsLockedDown(t *testing.T) {
	t.Parallel()
	pod, out, client := runOnFake(t, 0, "90s")
	require.Equal(t, 0, out.ExitCode)

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
		require.Nil(t, e.ValueFrom, "%s comes from nowhere but the spec", e.Name)
		env[e.Name] = e.Value
	}
	require.Equal(t, "sta_secret", env["STYRMIN_ACTION_TOKEN"])
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
	require.Error(t, err, "the pod is deleted at the end")
}

func TestPodExitCodeComesFromTheContainer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		exit int32
		want int
	}{{0, 0}, {1, 1}, {2, 2}, {143, -1}, {137, -1}} {
		_, out, _ := runOnFake(t, c.exit, "1m")
		require.Equal(t, c.want, out.ExitCode, "container exit %d", c.exit)
	}
}

func TestPodDeadlineIsTheTimeoutInWholeSeconds(t *testing.T) {
	t.Parallel()
	pod, _, _ := runOnFake(t, 0, "1500ms")
	require.Equal(t, int64(2), *pod.Spec.ActiveDeadlineSeconds)
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

// actionPod is a pod of an earlier action run on hook step stepID of the
// deployment whose id label is deployment, in phase.
func actionPod(stepID int64, deployment string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: actions.PodName("shop-db", stepID), Namespace: "shop", Labels: map[string]string{
			actions.ManagedByLabel: actions.ManagedBy, actions.RunLabel: strconv.FormatInt(stepID, 10),
			"styrmin.io/installation": "INST", "styrmin.io/deployment": deployment,
		}},
		Status: corev1.PodStatus{Phase: phase},
	}
}

// A worker that dies mid-run leaves its pod, which its deadline stops but
// nothing deletes: the deployment's next run removes it, and leaves alone a
// pod still running (another run's) and another deployment's.
func TestARunRemovesTheEndedPodsOfEarlierRuns(t *testing.T) {
	t.Parallel()
	_, _, client := runOnFake(t, 0, "1m",
		actionPod(5, "4", corev1.PodFailed), actionPod(6, "4", corev1.PodSucceeded),
		actionPod(7, "4", corev1.PodRunning), actionPod(8, "5", corev1.PodFailed))
	pods, err := client.CoreV1().Pods("shop").List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var left []string
	for _, p := range pods.Items {
		left = append(left, p.Name)
	}
	require.ElementsMatch(t, []string{actions.PodName("shop-db", 7), actions.PodName("shop-db", 8)}, left)
}
