package runner_test

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/kube"
)

// The crash test's worker runs in a child process: this test binary started
// again with these variables set, running only TestHelperWorker.
const (
	envWorkerDB   = "STYRMIN_TEST_WORKER_DATABASE_URL"
	envWorkerKube = "STYRMIN_TEST_WORKER_KUBECONFIG"
	envWorkerKey  = "STYRMIN_TEST_WORKER_SECRET_KEY"
	// envWorkerActions, when set, lets the child process run driver actions.
	envWorkerActions = "STYRMIN_TEST_WORKER_ACTIONS"
	// envWorkerActionImage, with envWorkerActions, runs them as pods of this
	// action-runner image (the pod runtime).
	envWorkerActionImage = "STYRMIN_TEST_WORKER_ACTION_IMAGE"
)

// crashOptions are the executor options of the crash test's processes:
// heartbeats quick enough that a dead worker is noticed in seconds.
var crashOptions = executor.Options{HeartbeatEvery: 300 * time.Millisecond, StaleAfter: 2 * time.Second}

// TestHelperWorker is the child process of the crash test: a worker that
// works tasks until it is killed. It does nothing in a normal test run.
func TestHelperWorker(t *testing.T) {
	if os.Getenv(envWorkerDB) == "" {
		t.Skip("the crash test's child process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	env := apptest.New(t, apptest.Options{
		DatabaseURL: os.Getenv(envWorkerDB), Kubeconfig: os.Getenv(envWorkerKube), SecretKey: os.Getenv(envWorkerKey),
		Work: true, Actions: os.Getenv(envWorkerActions) != "", ActionImage: os.Getenv(envWorkerActionImage), Executor: crashOptions,
	})
	env.Start(t)
	<-ctx.Done()
}

// startWorkerProcess starts the child worker process on the test's database.
// Extra variables (envWorkerActions=1) are added to its environment.
func startWorkerProcess(t *testing.T, dbURL, kubeconfig, key string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWorker$", "-test.count=1")
	cmd.Env = append(os.Environ(), envWorkerDB+"="+dbURL, envWorkerKube+"="+kubeconfig, envWorkerKey+"="+key)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) //nolint:errcheck // already dead when the test killed it
	return cmd
}

// killDuring waits until task taskID runs a step of one of kinds, then kills
// the worker process with SIGKILL.
func killDuring(t *testing.T, svc *deployment.Service, name string, taskID int64, worker *exec.Cmd, kinds ...executor.StepKind) string {
	t.Helper()
	var during string
	require.Eventually(t, func() bool {
		task, err := svc.Task(context.Background(), name, taskID)
		require.NoError(t, err)
		require.False(t, task.Ended(), "the task ended before the kill: %s %s", task.Status, task.Message)
		for _, s := range task.Steps {
			if s.Status == executor.StepRunning && slices.Contains(kinds, s.Kind) {
				during = s.Title
				return true
			}
		}
		return false
	}, 3*time.Minute, 5*time.Millisecond)
	require.NoError(t, worker.Process.Signal(syscall.SIGKILL))
	_, _ = worker.Process.Wait() // reaped: the kill is done
	return during
}

// TestKilledWorkerLeavesEveryTaskInADefinedState kills the process running an
// install, then the one running an upgrade, each in the middle of its work
// (SIGKILL, a real child process), and shows that another process ends each
// task in a defined state, recovers the Helm release, and that the deployment
// can be upgraded again afterwards.
func TestKilledWorkerLeavesEveryTaskInADefinedState(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupClusterWithoutWorker(t)
	ctx := context.Background()
	key := f.KeyText

	name := kubetest.UniqueName("crash")
	f.CleanUp(t, name)
	worker := startWorkerProcess(t, f.DBURL, f.Kubeconfig, key)
	install, err := f.Svc.Queue(ctx, deploymenttest.Redis(name))
	require.NoError(t, err)
	during := killDuring(t, f.Svc, name, install.TaskID, worker, deployment.StepHelm, deployment.StepWait)
	t.Logf("killed the worker during %q", during)

	worker = startWorkerProcess(t, f.DBURL, f.Kubeconfig, key)
	task := f.WaitEnded(t, name, install.TaskID)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Contains(t, task.Message, "The Styrmin process running this task stopped")
	require.Contains(t, task.Message, "Upgrade the deployment to finish installing it")
	for _, s := range task.Steps {
		require.NotEqual(t, executor.StepRunning, s.Status, "no step stays running")
	}

	review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"replicas": "1"}, By: "alice"})
	require.NoError(t, err)
	upgrade, err := f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	during = killDuring(t, f.Svc, name, upgrade.TaskID, worker, deployment.StepHelm, deployment.StepWait)
	t.Logf("killed the worker during %q", during)

	startWorkerProcess(t, f.DBURL, f.Kubeconfig, key)
	task = f.WaitEnded(t, name, upgrade.TaskID)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Contains(t, task.Message, "Review the upgrade again")

	review, err = f.Svc.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"replicas": "2"}, By: "alice"})
	require.NoError(t, err)
	again, err := f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	task = f.WaitEnded(t, name, again.TaskID)
	require.Equal(t, executor.TaskSucceeded, task.Status, task.Message)
	d := deploymenttest.MustGet(t, f.Fixture, name)
	require.Equal(t, deployment.StatusDeployed, d.Status)
	require.EqualValues(t, 2, d.Parameters["replicas"])
}

// leakActions and leakActionsPy are a manual action that hands the test its
// action token (through the file its prompt names) and runs until its worker
// process is gone.
const (
	leakActions   = `[{name: leak, hook: manual, function: "actions:leak", timeout: 5m, prompts: [{name: path, type: string, required: true}]}]`
	leakActionsPy = `
import os
import time


def leak(path):
    worker = os.getppid()
    with open(path + ".part", "w") as f:
        f.write(os.environ["STYRMIN_ACTION_TOKEN"])
    os.rename(path + ".part", path)
    while os.getppid() == worker:
        time.sleep(0.1)
`
)

// TestAKilledWorkersActionTokenIsRevokedOnRecovery kills the process running
// an action (SIGKILL: its own revocation never runs) and shows that the
// action's token works until then and is refused once another process has
// recovered the task, long before it would expire.
func TestAKilledWorkersActionTokenIsRevokedOnRecovery(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupClusterWithoutWorker(t)
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", leakActions, leakActionsPy)
	name := kubetest.UniqueName("revoke")
	f.CleanUp(t, name)
	worker := startWorkerProcess(t, f.DBURL, f.Kubeconfig, f.KeyText, envWorkerActions+"=1")
	req := deploymenttest.HelloWeb(name)
	req.DriverVersion = "1.5.0"
	install := deploymenttest.Queued(t)(f.Svc.Queue(ctx, req))
	require.Equal(t, executor.TaskSucceeded, f.WaitEnded(t, name, install.TaskID).Status)

	path := filepath.Join(sharedDir(t), "token")
	run := deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "leak", Prompts: deployment.FormInput{"path": path}, By: "alice"}))
	var token string
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(path)
		token = string(data)
		return err == nil
	}, 2*time.Minute, 20*time.Millisecond, "the action hands over its token")
	caller, err := f.Svc.Authenticate(ctx, token)
	require.NoError(t, err, "the token works while its action runs")
	require.Equal(t, run.TaskID, caller.TaskID)
	require.NoError(t, worker.Process.Signal(syscall.SIGKILL))
	_, _ = worker.Process.Wait() // reaped: the kill is done

	startWorkerProcess(t, f.DBURL, f.Kubeconfig, f.KeyText)
	task := f.WaitEnded(t, name, run.TaskID)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Contains(t, task.Message, "The Styrmin process running this task stopped")
	_, err = f.Svc.Authenticate(ctx, token)
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "the recovered task's token is revoked: %v", err)
}

// sharedDir is a folder that a sandboxed action (a user of its own) may
// write in and this test read: under /var/tmp, since the sandbox covers
// /tmp with one of its own. It is removed when the test ends.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "styrmin-shared-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o777))
	return dir
}

// orphanActions and orphanActionsPy are a manual action whose Job runs
// until it is stopped, and the action with it, waiting for the Job.
const (
	orphanActions   = `[{name: orphan, hook: manual, function: "actions:orphan", timeout: 5m}]`
	orphanActionsPy = `
import styrmin


def orphan():
    styrmin.execute_commands(["sleep 600"], image="busybox", timeout=600)
`
)

// TestRecoveryStopsTheActionPodAndJobOfAKilledWorker kills the process
// running an action as a pod (pod runtime) while the action waits for its
// Job, and shows that recovering the task deletes the orphan pod and Job,
// which would otherwise run on beside the task run again, and revokes the
// action's token.
func TestRecoveryStopsTheActionPodAndJobOfAKilledWorker(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupClusterWithoutWorker(t)
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", orphanActions, orphanActionsPy)
	name := kubetest.UniqueName("orphan")
	f.CleanUp(t, name)
	podWorker := []string{envWorkerActions + "=1", envWorkerActionImage + "=" + kubetest.ActionRunnerImage(t)}
	worker := startWorkerProcess(t, f.DBURL, f.Kubeconfig, f.KeyText, podWorker...)
	req := deploymenttest.HelloWeb(name)
	req.DriverVersion = "1.5.0"
	req.Parameters = deployment.FormInput{"site_title": "Shop", "replicas": "1"}
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, req)))

	run := deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "orphan", By: "alice"}))
	pods, jobs := f.Cluster.Kube.Clientset.CoreV1().Pods(name), f.Cluster.Kube.Clientset.BatchV1().Jobs(name)
	var step deployment.Step
	require.Eventually(t, func() bool {
		task, err := f.Svc.Task(ctx, name, run.TaskID)
		require.NoError(t, err)
		job, err := jobs.Get(ctx, kube.ActionJobName(name), metav1.GetOptions{})
		if err != nil || job.Status.Active == 0 || len(task.Steps) == 0 {
			return false
		}
		step = task.Steps[0]
		return true
	}, 3*time.Minute, 100*time.Millisecond, "the action's Job runs")
	podName := actions.PodName(name, step.ID)
	secret, err := f.Cluster.Kube.Clientset.CoreV1().Secrets(name).Get(ctx, podName, metav1.GetOptions{})
	require.NoError(t, err)
	token := string(secret.Data["token"])
	_, err = f.Svc.Authenticate(ctx, token)
	require.NoError(t, err, "the token works while its action runs")
	require.NoError(t, worker.Process.Signal(syscall.SIGKILL))
	_, _ = worker.Process.Wait() // reaped: the kill is done

	startWorkerProcess(t, f.DBURL, f.Kubeconfig, f.KeyText, podWorker...)
	task := f.WaitEnded(t, name, run.TaskID)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Contains(t, task.Message, "The Styrmin process running this task stopped")
	_, err = pods.Get(ctx, podName, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the orphan action pod is gone: %v", err)
	_, err = jobs.Get(ctx, kube.ActionJobName(name), metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the orphan Job is gone: %v", err)
	_, err = f.Svc.Authenticate(ctx, token)
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "the recovered task's token is revoked: %v", err)
}
