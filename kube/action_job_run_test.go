package kube_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	batchv1client "k8s.io/client-go/kubernetes/typed/batch/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	styrmin "github.com/styrmin/styrmin"
	styrdeploy "github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
)

// jobsEnding is a kube.Client over a fake clientset holding objects, in
// which every action Job created ends when it is first read unsuspended:
// completed, or failed with a pod that exited with code 3 (the fake serves
// "fake logs" as every pod's log). Each Job created gets a uid of its own,
// and deletions honour their uid precondition, as the API server does.
func jobsEnding(t *testing.T, succeed bool, objects ...runtime.Object) *kube.Client {
	t.Helper()
	if succeed {
		return jobsEndingWith(t, nil, objects...)
	}
	return jobsEndingWith(t, &corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{
		Name: kube.ActionJobContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}},
	}}}, objects...)
}

// jobsEndingWith is jobsEnding where a Job fails with a pod of failed status,
// or completes when failed is nil.
func jobsEndingWith(t *testing.T, failed *corev1.PodStatus, objects ...runtime.Object) *kube.Client {
	t.Helper()
	clientset := fake.NewClientset(objects...)
	var created atomic.Int32
	clientset.PrependReactor("create", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		job := action.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		job.UID = types.UID(fmt.Sprintf("uid-%s-new-%d", job.Name, created.Add(1)))
		job.CreationTimestamp = metav1.Now()
		job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": string(job.UID)}}
		return false, nil, nil // the tracker stores the Job as changed here
	})
	clientset.PrependReactor("get", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		get := action.(k8stesting.GetAction)
		obj, err := clientset.Tracker().Get(batchv1.SchemeGroupVersion.WithResource("jobs"), get.GetNamespace(), get.GetName())
		if err != nil {
			return false, nil, nil
		}
		job := obj.(*batchv1.Job)
		if !strings.Contains(string(job.UID), "-new-") || ptr.Deref(job.Spec.Suspend, false) || len(job.Status.Conditions) > 0 {
			return false, nil, nil
		}
		end := batchv1.JobComplete
		if failed != nil {
			end = batchv1.JobFailed
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: string(job.UID) + "-pod", Namespace: job.Namespace, Labels: job.Spec.Selector.MatchLabels},
				Status:     *failed,
			}
			if err := clientset.Tracker().Add(pod); err != nil {
				return true, nil, err
			}
		}
		job.Status.StartTime = ptr.To(metav1.Now())
		job.Status.Conditions = []batchv1.JobCondition{{Type: end, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", LastTransitionTime: metav1.Now()}}
		return true, job, clientset.Tracker().Update(batchv1.SchemeGroupVersion.WithResource("jobs"), job, job.Namespace)
	})
	clientset.PrependReactor("delete", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		del := action.(k8stesting.DeleteActionImpl)
		uid := del.GetDeleteOptions().Preconditions.UID
		obj, err := clientset.Tracker().Get(batchv1.SchemeGroupVersion.WithResource("jobs"), del.GetNamespace(), del.GetName())
		if err == nil && uid != nil && obj.(*batchv1.Job).UID != *uid {
			return true, nil, apierrors.NewConflict(batchv1.Resource("jobs"), del.GetName(), fmt.Errorf("the uid in the precondition (%s) does not match (%s)", *uid, obj.(*batchv1.Job).UID))
		}
		return false, nil, nil
	})
	return &kube.Client{Clientset: clientset}
}

// gettingJobs is a fake clientset that calls before each time it reads a
// Job, outside the lock the fake holds while it answers.
type gettingJobs struct {
	*fake.Clientset
	before func()
}

func (c gettingJobs) BatchV1() batchv1client.BatchV1Interface {
	return gettingBatch{c.Clientset.BatchV1(), c.before}
}

type gettingBatch struct {
	batchv1client.BatchV1Interface
	before func()
}

func (b gettingBatch) Jobs(namespace string) batchv1client.JobInterface {
	return gettingJobsOf{b.BatchV1Interface.Jobs(namespace), b.before}
}

type gettingJobsOf struct {
	batchv1client.JobInterface
	before func()
}

func (j gettingJobsOf) Get(ctx context.Context, name string, opts metav1.GetOptions) (*batchv1.Job, error) {
	j.before()
	return j.JobInterface.Get(ctx, name, opts)
}

// writes are the requests of client that change the cluster.
func writes(client any) []k8stesting.Action {
	clientset, ok := client.(*fake.Clientset)
	if !ok {
		clientset = client.(*kube.Client).Clientset.(*fake.Clientset)
	}
	var out []k8stesting.Action
	for _, a := range clientset.Actions() {
		if !slices.Contains([]string{"get", "list", "watch"}, a.GetVerb()) {
			out = append(out, a)
		}
	}
	return out
}

// existingJob is a Job named name in ns with the given labels and conditions.
func existingJob(name string, labels map[string]string, conditions ...batchv1.JobConditionType) *batchv1.Job {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, UID: "uid-old"}}
	for _, c := range conditions {
		job.Status.Conditions = append(job.Status.Conditions, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue})
	}
	return job
}

var actionLabels = map[string]string{kube.ActionJobLabel: kube.ActionJobLabelValue}

func backup() kube.ActionJob {
	return kube.ActionJob{
		Namespace: ns,
		Release:   "pg",
		Commands:  []string{"pg_dumpall > /backup/all.sql", "echo done"},
		Image:     "postgres:16",
		Env:       map[string]string{"PGHOST": "pg-primary", "PGUSER": "postgres"},
		SecretEnv: map[string]string{"PGPASSWORD": "hunter2-very-secret"},
		Timeout:   89500 * time.Millisecond,
	}
}

func TestActionJobName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "pg-job", kube.ActionJobName("pg"))
	longest := strings.Repeat("a", styrdeploy.MaxNameLength)
	require.LessOrEqual(t, len(kube.ActionJobName(longest)), 63, "the longest release's Job name fits in the job-name label of its pods")
	spec := backup()
	spec.Release = longest
	_, err := jobsEnding(t, true).RunActionJob(context.Background(), spec)
	require.NoError(t, err)
}

func TestRunActionJobCreatesTheJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := jobsEnding(t, true)

	out, err := client.RunActionJob(ctx, backup())
	require.NoError(t, err)
	require.Equal(t, kube.JobOutcome{Job: "pg-job", Succeeded: true, Message: "The Job pg-job completed."}, out)

	job, err := client.Clientset.BatchV1().Jobs(ns).Get(ctx, "pg-job", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "true", job.Labels["styrmin.io/action-job"], "the Job carries the label")
	require.Equal(t, "true", job.Spec.Template.Labels["styrmin.io/action-job"], "its pods carry the label")
	require.Equal(t, ptr.To[int32](0), job.Spec.BackoffLimit, "it ends at its first failed pod")
	require.Equal(t, ptr.To[int64](90), job.Spec.ActiveDeadlineSeconds, "the timeout, rounded up to seconds")
	require.Nil(t, job.Spec.TTLSecondsAfterFinished, "kept after it ends")
	require.Equal(t, ptr.To(false), job.Spec.Suspend, "started once its Secret exists")
	pod := job.Spec.Template.Spec
	require.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
	require.Equal(t, ptr.To[int64](5), pod.TerminationGracePeriodSeconds, "a stopped Job's commands are killed 5 s later")
	require.Equal(t, ptr.To(false), pod.AutomountServiceAccountToken, "no service-account token in the pod")
	require.Equal(t, ptr.To(false), pod.Containers[0].SecurityContext.AllowPrivilegeEscalation)
	require.Len(t, pod.Containers, 1)
	require.Equal(t, "postgres:16", pod.Containers[0].Image)
	require.Equal(t, []string{"sh", "-c", "set -e\npg_dumpall > /backup/all.sql\necho done"}, pod.Containers[0].Command)
	env := pod.Containers[0].Env
	require.Len(t, env, 3)
	secretName := env[1].ValueFrom.SecretKeyRef.Name
	require.True(t, strings.HasPrefix(secretName, "pg-job-env-"), secretName)
	require.Equal(t, []corev1.EnvVar{
		{Name: "PGHOST", Value: "pg-primary"},
		{Name: "PGPASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: secretName}, Key: "PGPASSWORD"}}},
		{Name: "PGUSER", Value: "postgres"},
	}, env)
	spec, err := json.Marshal(job)
	require.NoError(t, err)
	require.NotContains(t, string(spec), "hunter2", "the Job's spec never holds a secret value")

	secret, err := client.Clientset.CoreV1().Secrets(ns).Get(ctx, secretName, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string][]byte{"PGPASSWORD": []byte("hunter2-very-secret")}, secret.Data)
	require.Equal(t, []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "pg-job", UID: job.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}, secret.OwnerReferences, "the Job owns its Secret: deleting the Job deletes it")
	require.Equal(t, "styrmin", secret.Labels["app.kubernetes.io/managed-by"])

	var order []string
	for _, a := range writes(client) {
		order = append(order, a.GetVerb()+" "+a.GetResource().Resource)
	}
	require.Equal(t, []string{"create jobs", "create secrets", "patch jobs", "patch jobs"}, order, "created suspended, then its Secret, then started; marked done once its outcome is read")
	require.Equal(t, "true", job.Annotations["styrmin.io/action-job-done"], "the next call may delete it")
	create := writes(client)[0].(k8stesting.CreateAction).GetObject().(*batchv1.Job)
	require.Equal(t, ptr.To(true), create.Spec.Suspend, "no pod can start before its Secret exists")
}

func TestRunActionJobWithoutSecretsCreatesNoSecret(t *testing.T) {
	t.Parallel()
	client := jobsEnding(t, true)
	spec := backup()
	spec.SecretEnv = nil
	_, err := client.RunActionJob(context.Background(), spec)
	require.NoError(t, err)
	secrets, err := client.Clientset.CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Empty(t, secrets.Items)
	require.Equal(t, ptr.To(false), writes(client)[0].(k8stesting.CreateAction).GetObject().(*batchv1.Job).Spec.Suspend, "created running")
}

func TestRunActionJobReportsAFailedJobsTail(t *testing.T) {
	t.Parallel()
	client := jobsEnding(t, false)
	out, err := client.RunActionJob(context.Background(), backup())
	require.NoError(t, err, "a failed Job is an outcome, not an error")
	require.Equal(t, kube.JobOutcome{
		Job: "pg-job", Message: "The Job pg-job failed: its commands exited with code 3.",
		Tail: "fake logs", TailLines: 1,
	}, out)
}

func TestRunActionJobSaysWhyAPodFailedBeforeItsCommandsRan(t *testing.T) {
	t.Parallel()
	// As the local cluster's simulated node fails an action's pod.
	client := jobsEndingWith(t, &corev1.PodStatus{Phase: corev1.PodFailed, Reason: "NotRun", Message: "nothing runs an action's commands"})
	out, err := client.RunActionJob(context.Background(), backup())
	require.NoError(t, err)
	require.Equal(t, "The Job pg-job failed: its pod failed: nothing runs an action's commands.", out.Message)
}

func TestRunActionJobDeletesTheEndedJob(t *testing.T) {
	t.Parallel()
	for _, ended := range []batchv1.JobConditionType{batchv1.JobComplete, batchv1.JobFailed} {
		t.Run(string(ended), func(t *testing.T) {
			t.Parallel()
			client := jobsEnding(t, true, existingJob("pg-job", actionLabels, ended))
			out, err := client.RunActionJob(context.Background(), backup())
			require.NoError(t, err)
			require.Equal(t, "pg-job", out.DeletedJob)
			require.True(t, out.Succeeded)
			job, err := client.Clientset.BatchV1().Jobs(ns).Get(context.Background(), "pg-job", metav1.GetOptions{})
			require.NoError(t, err)
			require.Equal(t, types.UID("uid-pg-job-new-1"), job.UID, "the new Job replaced the old one")
		})
	}
}

func TestRunActionJobRefusesAndDeletesNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing *batchv1.Job
		want     string
	}{
		{"still running", existingJob("pg-job", actionLabels), "The Job pg-job of an earlier action is still running in namespace shop; try again once it has ended."},
		{"running, only about to fail", existingJob("pg-job", actionLabels, batchv1.JobFailureTarget), "still running"},
		{"not created by an action", existingJob("pg-job", nil, batchv1.JobComplete), "A Job named pg-job exists in namespace shop that no driver action created; Styrmin leaves it alone — delete or rename it."},
		{"label with another value", existingJob("pg-job", map[string]string{kube.ActionJobLabel: "false"}, batchv1.JobFailed), "no driver action created"},
		{"running while someone deletes it", deleting(existingJob("pg-job", actionLabels)), "still running"},
		{"suspended by a call that is creating its Secret", suspended(existingJob("pg-job", actionLabels), time.Now()), "still running"},
		{"ended, its call not done reading it", endedNow(existingJob("pg-job", actionLabels, batchv1.JobFailed)), "still running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The running Job's pod reads its Secret: a refused call must not touch it.
			theirSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg-job-env-abcde", Namespace: ns,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "pg-job", UID: "uid-old"}}},
				Data: map[string][]byte{"PGPASSWORD": []byte("the running Job's value")}}
			client := jobsEnding(t, true, tt.existing, theirSecret)
			recorded := 0
			spec := backup()
			spec.RecordDeleted = func(context.Context, string) error { recorded++; return nil }
			out, err := client.RunActionJob(context.Background(), spec)
			require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
			require.Contains(t, styrmin.ErrorMessage(err), tt.want)
			require.Empty(t, out.DeletedJob)
			require.Zero(t, recorded)
			require.Empty(t, writes(client), "a refused call changes nothing in the cluster")
			job, err := client.Clientset.BatchV1().Jobs(ns).Get(context.Background(), "pg-job", metav1.GetOptions{})
			require.NoError(t, err)
			require.Equal(t, tt.existing, job, "the Job is left as it was")
		})
	}
}

// deleting is job with a deletion under way (foreground: it waits for its pods).
func deleting(job *batchv1.Job) *batchv1.Job {
	job.DeletionTimestamp = ptr.To(metav1.Now())
	job.Finalizers = []string{metav1.FinalizerDeleteDependents}
	return job
}

// endedNow is job whose end conditions came now.
func endedNow(job *batchv1.Job) *batchv1.Job {
	for i := range job.Status.Conditions {
		job.Status.Conditions[i].LastTransitionTime = metav1.Now()
	}
	return job
}

// suspended is job created suspended at created, never started.
func suspended(job *batchv1.Job, created time.Time) *batchv1.Job {
	job.Spec.Suspend = ptr.To(true)
	job.CreationTimestamp = metav1.NewTime(created)
	return job
}

func TestRunActionJobDeletesASuspendedJobWhoseCallDied(t *testing.T) {
	t.Parallel()
	client := jobsEnding(t, true, suspended(existingJob("pg-job", actionLabels), time.Now().Add(-time.Hour)))
	out, err := client.RunActionJob(context.Background(), backup())
	require.NoError(t, err)
	require.Equal(t, "pg-job", out.DeletedJob, "a Job left suspended for an hour never ran: no deployment stays blocked by it")
	require.True(t, out.Succeeded)
}

func TestRunActionJobWaitsForAnEndedJobThatSomeoneElseDeletes(t *testing.T) {
	t.Parallel()
	client := jobsEnding(t, true, deleting(existingJob("pg-job", actionLabels, batchv1.JobComplete)))
	clientset := client.Clientset.(*fake.Clientset)
	gets := 0
	clientset.PrependReactor("get", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if gets++; gets == 2 { // the deletion finishes
			require.NoError(t, clientset.Tracker().Delete(batchv1.SchemeGroupVersion.WithResource("jobs"), ns, "pg-job"))
		}
		return false, nil, nil
	})
	out, err := client.RunActionJob(context.Background(), backup())
	require.NoError(t, err)
	require.Empty(t, out.DeletedJob, "this call deleted nothing")
	require.True(t, out.Succeeded)
	for _, a := range writes(client) {
		require.NotEqual(t, "delete", a.GetVerb())
	}
}

func TestRacingCallsOnOneDeployment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := jobsEnding(t, false, existingJob("pg-job", actionLabels, batchv1.JobFailed))
	// Both calls read the ended Job before either deletes it.
	var arrived sync.WaitGroup
	arrived.Add(2)
	var gets atomic.Int32
	fakes := client.Clientset.(*fake.Clientset)
	client = &kube.Client{Clientset: gettingJobs{fakes, func() {
		if gets.Add(1) <= 2 {
			arrived.Done()
			arrived.Wait()
		}
	}}}
	type result struct {
		out kube.JobOutcome
		err error
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			out, err := client.RunActionJob(ctx, backup())
			results <- result{out, err}
		}()
	}
	var proceeded, refused []result
	for range 2 {
		r := <-results
		if r.err == nil {
			proceeded = append(proceeded, r)
		} else {
			refused = append(refused, r)
		}
	}
	require.Len(t, proceeded, 1, "exactly one call proceeds: %v", refused)
	require.Len(t, refused, 1)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(refused[0].err), "%v", refused[0].err)
	require.Empty(t, refused[0].out.Tail, "the refused call reads no output: %v; %+v", refused[0].err, proceeded)
	require.Equal(t, "fake logs", proceeded[0].out.Tail)

	job, err := fakes.BatchV1().Jobs(ns).Get(ctx, "pg-job", metav1.GetOptions{})
	require.NoError(t, err)
	for _, a := range writes(fakes) {
		switch a.GetVerb() {
		case "delete":
			require.Equal(t, types.UID("uid-old"), *a.(k8stesting.DeleteActionImpl).GetDeleteOptions().Preconditions.UID, "only the ended Job is ever deleted")
		case "patch":
			require.Contains(t, string(a.(k8stesting.PatchAction).GetPatch()), string(job.UID), "only the winner's Job is started")
		}
	}
	secrets, err := fakes.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, secrets.Items, 1, "only the call that proceeds creates a Secret")
	require.Equal(t, job.UID, secrets.Items[0].OwnerReferences[0].UID, "owned by its own Job")
}

func TestRunActionJobRecordsTheDeletionWhateverHappensNext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		after func(t *testing.T, clientset *fake.Clientset)
		ctx   func() (context.Context, context.CancelFunc)
		want  func(error) bool
	}{
		{"a create conflict", func(t *testing.T, clientset *fake.Clientset) {
			clientset.PrependReactor("create", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewAlreadyExists(batchv1.Resource("jobs"), "pg-job")
			})
		}, func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			func(err error) bool { return styrmin.ErrorCode(err) == styrmin.ECONFLICT }},
		{"a wait for it to go that ends", func(t *testing.T, clientset *fake.Clientset) {
			old := existingJob("pg-job", actionLabels, batchv1.JobComplete)
			clientset.PrependReactor("get", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
				return true, deleting(old.DeepCopy()), nil // its pods never go
			})
		}, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Second)
		}, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := jobsEnding(t, true, existingJob("pg-job", actionLabels, batchv1.JobComplete))
			var recorded []string
			spec := backup()
			spec.RecordDeleted = func(_ context.Context, job string) error { recorded = append(recorded, job); return nil }
			ctx, cancel := tt.ctx()
			defer cancel()
			clientset := client.Clientset.(*fake.Clientset)
			clientset.PrependReactor("delete", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
				tt.after(t, clientset) // from now on
				return false, nil, nil
			})
			out, err := client.RunActionJob(ctx, spec)
			require.True(t, tt.want(err), "%v", err)
			require.Equal(t, []string{"pg-job"}, recorded, "recorded once, when it was deleted")
			require.Equal(t, "pg-job", out.DeletedJob)
		})
	}
}

func TestRunActionJobFailsWhenTheDeletionCannotBeRecorded(t *testing.T) {
	t.Parallel()
	client := jobsEnding(t, true, existingJob("pg-job", actionLabels, batchv1.JobComplete))
	spec := backup()
	spec.RecordDeleted = func(context.Context, string) error { return errors.New("database away") }
	_, err := client.RunActionJob(context.Background(), spec)
	require.ErrorContains(t, err, "database away")
	_, err = client.Clientset.BatchV1().Jobs(ns).Get(context.Background(), "pg-job", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "no new Job without its record")
}

func TestRunActionJobValidatesItsSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*kube.ActionJob)
		field  string
	}{
		{"no namespace", func(j *kube.ActionJob) { j.Namespace = "" }, "namespace"},
		{"no release", func(j *kube.ActionJob) { j.Release = "" }, "release"},
		{"release too long for a Job name", func(j *kube.ActionJob) { j.Release = strings.Repeat("a", 60) }, "release"},
		{"no commands", func(j *kube.ActionJob) { j.Commands = nil }, "commands"},
		{"a blank command", func(j *kube.ActionJob) { j.Commands = []string{"true", " "} }, "commands"},
		{"no image", func(j *kube.ActionJob) { j.Image = "" }, "image"},
		{"no timeout", func(j *kube.ActionJob) { j.Timeout = 0 }, "timeout"},
		{"bad env name", func(j *kube.ActionJob) { j.Env = map[string]string{"1X": "y"} }, "env"},
		{"bad secret_env name", func(j *kube.ActionJob) { j.SecretEnv = map[string]string{"1PW": "s3cret"} }, "secret_env"},
		{"both env and secret_env", func(j *kube.ActionJob) { j.Env = map[string]string{"PGPASSWORD": "x"} }, "secret_env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := jobsEnding(t, true)
			spec := backup()
			tt.change(&spec)
			_, err := client.RunActionJob(context.Background(), spec)
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
			require.Contains(t, styrmin.ErrorFields(err), tt.field)
			require.Empty(t, writes(client), "nothing created")
		})
	}
}

func TestRunActionJobEndsWithItsContext(t *testing.T) {
	t.Parallel()
	client := fakeClient() // its Jobs never end
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err := client.RunActionJob(ctx, backup())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotEqual(t, styrmin.EUNAVAILABLE, styrmin.ErrorCode(err), "the caller stopped waiting; the cluster is fine")
	require.ErrorContains(t, err, "the Job was told to stop")
	job, err := client.Clientset.BatchV1().Jobs(ns).Get(context.Background(), "pg-job", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, ptr.To[int64](1), job.Spec.ActiveDeadlineSeconds, "its time limit is already past: Kubernetes ends it")
}

func TestDeleteActionJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := jobsEnding(t, true, existingJob("pg-job", actionLabels), existingJob("other-job", nil))
	require.NoError(t, client.DeleteActionJob(ctx, ns, "pg"), "a running one too")
	_, err := client.Clientset.BatchV1().Jobs(ns).Get(ctx, "pg-job", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err))
	del := writes(client)[0].(k8stesting.DeleteActionImpl).GetDeleteOptions()
	require.Equal(t, ptr.To(metav1.DeletePropagationForeground), del.PropagationPolicy, "its Secret and pods go before it")

	require.NoError(t, client.DeleteActionJob(ctx, ns, "other"))
	_, err = client.Clientset.BatchV1().Jobs(ns).Get(ctx, "other-job", metav1.GetOptions{})
	require.NoError(t, err, "a Job no action created is left alone")
	require.NoError(t, client.DeleteActionJob(ctx, ns, "none"), "no Job: nothing to do")
}

func TestRunActionJobKeepsTheOutputSeenWhenItStopsWaiting(t *testing.T) {
	t.Parallel()
	for _, clusterAway := range []bool{false, true} {
		t.Run(fmt.Sprintf("cluster away %v", clusterAway), func(t *testing.T) {
			t.Parallel()
			// The Job's pod runs and prints ("fake logs"); the Job never ends.
			clientset := fake.NewClientset()
			clientset.PrependReactor("create", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
				job := action.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
				job.UID = "uid-running"
				job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "uid-running"}}
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pg-job-run", Namespace: ns, Labels: job.Spec.Selector.MatchLabels},
					Status: corev1.PodStatus{Phase: corev1.PodRunning}}
				return false, nil, clientset.Tracker().Add(pod)
			})
			var listed atomic.Bool
			clientset.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
				listed.Store(true)
				return false, nil, nil
			})
			if clusterAway { // once the log is followed, the API server stops answering
				clientset.PrependReactor("*", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
					if listed.Load() && action.GetVerb() != "list" && action.GetSubresource() != "log" {
						return true, nil, errors.New("connection refused")
					}
					return false, nil, nil
				})
			}
			client := &kube.Client{Clientset: clientset}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second) // the action's own time ends
			defer cancel()
			spec := backup()
			spec.SecretEnv = nil
			out, err := client.RunActionJob(ctx, spec)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Equal(t, "fake logs", out.Tail, "the end of the output seen so far")
			require.Equal(t, 1, out.TailLines)
			require.Equal(t, "Styrmin stopped waiting for the Job pg-job: the action ended before it (cancelled, timed out or killed).", out.Message)
			if clusterAway {
				require.ErrorContains(t, err, "could not be told to stop")
			}
		})
	}
}

func TestRunActionJobKeepsTheOutputSeenOfAPodGoneAtItsTimeLimit(t *testing.T) {
	t.Parallel()
	// The Job fails at its time limit and Kubernetes deletes its pod, whose
	// log was followed while it ran.
	clientset := fake.NewClientset()
	clientset.PrependReactor("create", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		job := action.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		job.UID = "uid-limited"
		job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "uid-limited"}}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pg-job-run", Namespace: ns, Labels: job.Spec.Selector.MatchLabels},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		return false, nil, clientset.Tracker().Add(pod)
	})
	var followed atomic.Bool
	clientset.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return followed.Swap(true), &corev1.PodList{}, nil // the first list finds the pod, later ones none
	})
	clientset.PrependReactor("get", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		obj, err := clientset.Tracker().Get(batchv1.SchemeGroupVersion.WithResource("jobs"), ns, "pg-job")
		if err != nil || !followed.Load() {
			return false, nil, nil
		}
		job := obj.(*batchv1.Job)
		job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonDeadlineExceeded, LastTransitionTime: metav1.Now()}}
		return true, job, nil
	})
	spec := backup()
	spec.SecretEnv = nil
	out, err := (&kube.Client{Clientset: clientset}).RunActionJob(context.Background(), spec)
	require.NoError(t, err)
	require.Equal(t, "fake logs", out.Tail, "what was read while it ran")
	require.Equal(t, "The Job pg-job failed: it was stopped after its time limit of 1m29.5s. Its pod is gone: the output is what Styrmin read while it ran.", out.Message)
}
