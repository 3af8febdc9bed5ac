package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/redact"
)

// testActions are the actions of the Hello Web copy the actions test
// deploys: one per behaviour under test.
const testActions = `
- {name: announce, hook: post-install, mode: best-effort, function: "actions:crash", timeout: 2m}
- {name: prepare, hook: pre-upgrade, mode: blocking, function: "actions:prepare", timeout: 3m}
- name: cycle
  hook: manual
  function: "actions:cycle"
  timeout: 3m
  prompts:
    - {name: note, type: string, default: hello}
    - {name: key, type: secret, required: true}
- {name: linger, hook: manual, function: "actions:linger", timeout: 5m}
`

// testActionsPy is their Python module. Jobs run their commands with
// busybox's sh in pods on the local cluster's real node.
const testActionsPy = `
import logging
import os

import styrmin

log = logging.getLogger("test")


def crash():
    print("starting")
    log.error("could not reach https://admin:hunter2-db-pass@db.example with token=%s", os.environ["STYRMIN_ACTION_TOKEN"])
    raise RuntimeError("boom")


def prepare():
    styrmin.execute_commands(["echo first"], image="busybox")
    styrmin.execute_commands(
        ["i=0; while [ $i -lt 5000 ]; do i=$((i+1)); echo line $i password=s3cret-passw0rd; done; exit 3"],
        image="busybox",
    )


def cycle(note, key):
    d = styrmin.deployment()
    log.info("note %s, key %s", note, key)
    stopped = styrmin.stop_components()
    started = styrmin.start_components()
    return {"deployment": d.name, "stopped": stopped.status, "started": started.status}


def linger():
    print("lingering")
    import time
    time.sleep(300)
`

// TestActionsRunAsHookStepsOnTheLocalCluster runs driver actions for real: a
// crashing best-effort post-install action (its error line and log
// redacted), a blocking pre-upgrade action whose second Job fails (the
// upgrade does not happen; the deleted-Job line and a bounded tail are on its
// step), and a manual action with a secret prompt that stops and starts the
// components through linked tasks, listed under its step and in its result.
// The process runtime runs them.
func TestActionsRunAsHookStepsOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	runHookSteps(t, deploymenttest.SetupCluster(t))
}

// TestActionsRunAsPodsOnTheLocalCluster runs the same actions with the pod
// runtime: each run is a pod of the action-runner image in the deployment's
// namespace, which gets its bundle and prompts (a secret one, a default)
// through GET run; every pod is gone once its run ended.
func TestActionsRunAsPodsOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupClusterPods(t)
	requireNoActionPods(t, f, runHookSteps(t, f))
}

// runHookSteps is TestActionsRunAsHookStepsOnTheLocalCluster on f; it
// returns the deployment's name.
func runHookSteps(t *testing.T, f deploymenttest.ClusterFixture) string {
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", testActions, testActionsPy)
	name := kubetest.UniqueName("acts")
	f.CleanUp(t, name)
	req := deploymenttest.HelloWeb(name)
	req.DriverVersion = "1.5.0"

	install := f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, req)))
	announce := deploymenttest.HookStep(t, install, "announce")
	require.Equal(t, executor.StepWarning, announce.Status, "a best-effort action's failure is a warning")
	errLine := announce.Hook.Error
	require.Contains(t, errLine, "could not reach https://admin:"+redact.Mark+"@db.example with token="+redact.Mark, "the first ERROR line, redacted")
	logs := deploymenttest.LogText(announce)
	require.Contains(t, logs, "INFO starting", "print() reaches the step at INFO")
	require.Contains(t, logs, "RuntimeError: boom")
	require.NotContains(t, logs, "hunter2-db-pass")
	require.NotContains(t, logs, "sta_", "the action token never reaches the log")

	review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"replicas": "3"}, By: "alice"})
	require.NoError(t, err)
	upgrade := f.WaitEnded(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})).TaskID)
	require.Equal(t, executor.TaskFailed, upgrade.Status, "a blocking pre-upgrade failure fails the upgrade")
	prepare := deploymenttest.HookStep(t, upgrade, "prepare")
	require.Equal(t, executor.StepFailed, prepare.Status)
	for _, st := range upgrade.Steps {
		require.NotEqual(t, deployment.StepHelm, st.Kind, "nothing is upgraded after a blocking failure")
	}
	require.Len(t, prepare.Hook.DeletedJobs, 1, "the second call deleted the first call's ended Job")
	require.Contains(t, prepare.Hook.DeletedJobs[0], name+"-job")
	require.NotNil(t, prepare.Hook.JobDetail, "the failed Job's tail is recorded")
	tail := prepare.Hook.JobTail
	require.LessOrEqual(t, strings.Count(tail, "\n")+1, 200)
	require.LessOrEqual(t, len(tail), 64<<10)
	require.True(t, strings.HasSuffix(tail, "line 5000 password="+redact.Mark), "the tail ends with the last line, redacted: %q", tail[max(0, len(tail)-80):])
	d := deploymenttest.MustGet(t, f.Fixture, name)
	require.Equal(t, "1.5.0", d.DriverVersion)
	deploymenttest.RequireHistory(t, f, d, 1)

	_, err = f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "cycle", Prompts: deployment.FormInput{}, By: "alice"})
	require.Equal(t, "key is required", deploymenttest.FieldsOf(t, err)["prompt.cycle.key"])
	action := f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "cycle", Prompts: deployment.FormInput{"key": "prompt-s3cret"}, By: "alice"})))
	cycle := deploymenttest.HookStep(t, action, "cycle")
	require.NotContains(t, deploymenttest.LogText(cycle), "prompt-s3cret", "a secret prompt is redacted")
	require.Contains(t, deploymenttest.LogText(cycle), "note hello, key "+redact.Mark)
	require.Len(t, cycle.Tasks, 2, "the stop and start tasks are listed under the step")
	require.Equal(t, deployment.KindStop, cycle.Tasks[0].Kind)
	require.Equal(t, deployment.KindStart, cycle.Tasks[1].Kind)
	var result struct {
		Linked []deployment.LinkedResult
	}
	require.NoError(t, json.Unmarshal(action.Result, &result))
	require.Len(t, result.Linked, 2, "the hook's result includes the linked tasks")
	require.Equal(t, executor.TaskSucceeded, result.Linked[0].Status)
	require.JSONEq(t, `{"deployment": "`+name+`", "stopped": "succeeded", "started": "succeeded"}`, string(cycle.Hook.Result), "the action's return value")
	return name
}

// TestARunningActionCanBeCancelled cancels a manual action while its process
// runs: the process is stopped, its step says so, the task ends canceled.
func TestARunningActionCanBeCancelled(t *testing.T) {
	t.Parallel()
	cancelRunningAction(t, deploymenttest.SetupCluster(t))
}

// TestARunningActionPodCanBeCancelled cancels a manual action while its pod
// runs: the pod is deleted, the step and the task say so as above.
func TestARunningActionPodCanBeCancelled(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupClusterPods(t)
	requireNoActionPods(t, f, cancelRunningAction(t, f))
}

// cancelRunningAction is TestARunningActionCanBeCancelled on f; it returns
// the deployment's name.
func cancelRunningAction(t *testing.T, f deploymenttest.ClusterFixture) string {
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", testActions, testActionsPy)
	name := kubetest.UniqueName("cancel")
	f.CleanUp(t, name)
	req := deploymenttest.HelloWeb(name)
	req.DriverVersion = "1.5.0"
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, req)))

	run := deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "linger", By: "alice"}))
	require.Eventually(t, func() bool {
		task, err := f.Svc.Task(ctx, name, run.TaskID)
		require.NoError(t, err)
		return len(task.Steps) == 1 && strings.Contains(deploymenttest.LogText(task.Steps[0]), "lingering")
	}, time.Minute, 100*time.Millisecond, "the action runs")
	require.NoError(t, f.Svc.CancelTask(ctx, name, run.TaskID, "bob"))

	task := f.WaitEnded(t, name, run.TaskID)
	require.Equal(t, executor.TaskCanceled, task.Status)
	require.True(t, strings.HasPrefix(task.Message, "Cancelled by bob while it ran."), task.Message)
	require.Equal(t, executor.StepFailed, task.Steps[0].Status)
	require.Equal(t, "Action linger failed: the action was cancelled", task.Steps[0].Hook.Error)
	return name
}

// requireNoActionPods checks that no action pod is left in the namespace of
// deployment name.
func requireNoActionPods(t *testing.T, f deploymenttest.ClusterFixture, name string) {
	t.Helper()
	d := deploymenttest.MustGet(t, f.Fixture, name)
	pods, err := f.Cluster.Kube.Clientset.CoreV1().Pods(d.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: actions.RunLabel})
	require.NoError(t, err)
	require.Empty(t, pods.Items, "every action pod is deleted when its run ends")
}

// stubbornActions and stubbornActionsPy are a manual action that, told to
// stop (SIGTERM), does not: it calls the action API with its token until it
// is refused, for the few seconds before it is killed.
const (
	stubbornActions   = `[{name: stubborn, hook: manual, function: "actions:stubborn", timeout: 5m}]`
	stubbornActionsPy = `
import signal
import time

import styrmin


def stubborn():
    def call_on(signum, frame):
        for _ in range(30):
            try:
                styrmin.deployment()
                print("answered")
            except styrmin.StyrminError as e:
                print("refused:", e)
                return
            time.sleep(0.1)

    signal.signal(signal.SIGTERM, call_on)
    print("holding on")
    while True:
        time.sleep(0.1)
`
)

// TestACancelledActionLosesItsTokenAtOnce cancels a manual action that
// ignores being told to stop: its token is refused at once, while its
// runtime still waits for it to end, not once it is gone.
func TestACancelledActionLosesItsTokenAtOnce(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", stubbornActions, stubbornActionsPy)
	name := kubetest.UniqueName("stubborn")
	f.CleanUp(t, name)
	req := deploymenttest.HelloWeb(name)
	req.DriverVersion = "1.5.0"
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, req)))

	run := deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "stubborn", By: "alice"}))
	require.Eventually(t, func() bool {
		task, err := f.Svc.Task(ctx, name, run.TaskID)
		require.NoError(t, err)
		return len(task.Steps) == 1 && strings.Contains(deploymenttest.LogText(task.Steps[0]), "holding on")
	}, time.Minute, 100*time.Millisecond, "the action runs")
	require.NoError(t, f.Svc.CancelTask(ctx, name, run.TaskID, "bob"))

	task := f.WaitEnded(t, name, run.TaskID)
	require.Equal(t, executor.TaskCanceled, task.Status)
	require.Contains(t, deploymenttest.LogText(task.Steps[0]), "INFO refused: ", "the action's calls are refused before it is killed")
}
