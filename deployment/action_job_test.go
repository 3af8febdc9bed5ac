package deployment_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/kube"
)

// jobActions is a manual action with a secret prompt, for execute_commands.
const jobActions = `
- name: migrate
  hook: manual
  function: "actions:migrate"
  timeout: 5m
  prompts:
    - {name: key, type: secret, required: true}
`

// jobFixture is a deployment "site" of Hello Web on a fake cluster whose
// action Jobs fail at once (their pod exits with code 3; the fake serves
// "fake logs" as every log), and a queued run of its action migrate with the
// secret prompt key.
type jobFixture struct {
	deploymenttest.Fixture
	clientset *fake.Clientset
	caller    *deployment.Caller
}

func setupJobs(t *testing.T, objects ...runtime.Object) jobFixture {
	t.Helper()
	ctx := context.Background()
	clientset := fake.NewClientset(objects...)
	clientset.PrependReactor("create", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		job := action.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		job.UID = "uid-new"
		job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "uid-new"}}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: job.Name + "-x1", Namespace: job.Namespace, Labels: job.Spec.Selector.MatchLabels},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{
				Name: kube.ActionJobContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}}}}}}
		job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
		return false, nil, clientset.Tracker().Add(pod)
	})
	f := deploymenttest.Setup(t, &deployment.Cluster{Kube: &kube.Client{Clientset: clientset}})
	f.ImportCopy(t, "hello-web", "1.5.0", jobActions, "def migrate(key):\n    pass\n")
	req := deploymenttest.HelloWeb("site")
	req.DriverVersion = "1.5.0"
	_, err := f.Svc.Queue(ctx, req)
	require.NoError(t, err)
	run, err := f.Svc.Queue(ctx, &deployment.RunAction{Name: "site", Action: "migrate", Prompts: deployment.FormInput{"key": "prompt-s3cret-key"}, By: "alice"})
	require.NoError(t, err)
	step, err := f.Q.InsertStep(ctx, db.InsertStepParams{TaskID: run.TaskID, Kind: deployment.StepHook, Title: "migrate"})
	require.NoError(t, err)
	d := deploymenttest.MustGet(t, f, "site")
	clientset.ClearActions()
	return jobFixture{Fixture: f, clientset: clientset,
		caller: &deployment.Caller{DeploymentID: d.ID, TaskID: run.TaskID, StepID: step.ID, Action: "migrate"}}
}

// detail is the detail of the caller's step.
func (f jobFixture) detail(t *testing.T) map[string]any {
	t.Helper()
	steps, err := f.Q.ListSteps(context.Background(), f.caller.TaskID)
	require.NoError(t, err)
	i := slices.IndexFunc(steps, func(s db.Step) bool { return s.ID == f.caller.StepID })
	var detail map[string]any
	require.NoError(t, json.Unmarshal(steps[i].Detail, &detail))
	return detail
}

// changes are the requests that changed the fake cluster.
func (f jobFixture) changes() []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range f.clientset.Actions() {
		if !slices.Contains([]string{"get", "list", "watch"}, a.GetVerb()) {
			out = append(out, a)
		}
	}
	return out
}

func jobRequest() deployment.CommandsRequest {
	return deployment.CommandsRequest{Commands: []string{"migrate --key \"$KEY\""}, Image: "busybox", Timeout: 60,
		SecretEnv: map[string]string{"KEY": deployment.SecretPromptPrefix + "key"}}
}

func TestExecuteCommandsHandsASecretPromptToItsJobOnly(t *testing.T) {
	t.Parallel()
	f := setupJobs(t)
	ctx := context.Background()
	res, err := f.Svc.ExecuteCommands(ctx, f.caller, jobRequest())
	require.NoError(t, err)
	require.False(t, res.Succeeded)

	job, err := f.clientset.BatchV1().Jobs("site").Get(ctx, "site-job", metav1.GetOptions{})
	require.NoError(t, err)
	spec, err := json.Marshal(job)
	require.NoError(t, err)
	require.NotContains(t, string(spec), "prompt-s3cret-key", "the Job's spec holds no value")
	ref := job.Spec.Template.Spec.Containers[0].Env[0].ValueFrom.SecretKeyRef
	secret, err := f.clientset.CoreV1().Secrets("site").Get(ctx, ref.Name, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "prompt-s3cret-key", string(secret.Data[ref.Key]), "the Job's own Secret holds the prompt's value")
	require.Equal(t, job.UID, secret.OwnerReferences[0].UID)

	detail := f.detail(t)
	require.Equal(t, "fake logs", detail["job_tail"])
	require.Equal(t, "The Job site-job failed: its commands exited with code 3.", detail["job_message"], "how the Job ended")

	req := jobRequest()
	req.SecretEnv = map[string]string{"KEY": deployment.SecretPromptPrefix + "path"}
	_, err = f.Svc.ExecuteCommands(ctx, f.caller, req)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "only a secret prompt of the calling action")
}

func TestExecuteCommandsRefusedChangesNothing(t *testing.T) {
	t.Parallel()
	running := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "site-job", Namespace: "site", UID: "uid-running",
		Labels: map[string]string{kube.ActionJobLabel: kube.ActionJobLabelValue}}}
	itsSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "site-job-env-abcde", Namespace: "site",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "site-job", UID: "uid-running"}}},
		Data: map[string][]byte{"KEY": []byte("the running pod's key")}}
	f := setupJobs(t, running, itsSecret)
	_, err := f.Svc.ExecuteCommands(context.Background(), f.caller, jobRequest())
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.Empty(t, f.changes(), "no Secret written, nothing created or deleted")
	require.NotContains(t, f.detail(t), "job_tail")
}

func TestExecuteCommandsRecordsTheDeletedJobWhenItIsDeletedAndOnce(t *testing.T) {
	t.Parallel()
	ended := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "site-job", Namespace: "site", UID: "uid-old",
		Labels: map[string]string{kube.ActionJobLabel: kube.ActionJobLabelValue}},
		Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}}}
	f := setupJobs(t, ended)
	ctx := context.Background()
	_, err := f.Svc.ExecuteCommands(ctx, f.caller, jobRequest())
	require.NoError(t, err)
	_, err = f.Svc.ExecuteCommands(ctx, f.caller, jobRequest()) // deletes the first call's Job, of the same name
	require.NoError(t, err)
	require.Equal(t, []any{"site-job"}, f.detail(t)["deleted_jobs"], "the step names the Job once")

	// A call whose create then conflicts still records what it deleted.
	g := setupJobs(t, ended)
	g.clientset.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewAlreadyExists(batchv1.Resource("jobs"), "site-job")
	})
	_, err = g.Svc.ExecuteCommands(ctx, g.caller, jobRequest())
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.Equal(t, []any{"site-job"}, g.detail(t)["deleted_jobs"])
	for _, a := range g.changes() {
		if del, ok := a.(k8stesting.DeleteActionImpl); ok {
			require.Equal(t, types.UID("uid-old"), *del.GetDeleteOptions().Preconditions.UID)
		}
	}
}

func TestExecuteCommandsNeverOutlivesTheAction(t *testing.T) {
	t.Parallel()
	f := setupJobs(t)
	ctx := context.Background()
	f.caller.Deadline = time.Now().Add(30 * time.Second)
	req := jobRequest()
	req.Timeout = 600
	_, err := f.Svc.ExecuteCommands(ctx, f.caller, req)
	require.NoError(t, err)
	job, err := f.clientset.BatchV1().Jobs("site").Get(ctx, "site-job", metav1.GetOptions{})
	require.NoError(t, err)
	require.LessOrEqual(t, *job.Spec.ActiveDeadlineSeconds, int64(30), "the Job ends by the end of the action's own timeout")
	require.Positive(t, *job.Spec.ActiveDeadlineSeconds)

	g := setupJobs(t)
	g.caller.Deadline = time.Now().Add(-time.Second)
	_, err = g.Svc.ExecuteCommands(ctx, g.caller, jobRequest())
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Empty(t, g.changes())
}
