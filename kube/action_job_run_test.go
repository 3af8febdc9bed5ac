package kube_test

import (
	"context"
	"encoding/json"
	"strings"
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
	"k8s.io/utils/ptr"

	styrmin "github.com/styrmin/styrmin"
	styrdeploy "github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
)

// jobsEnding is a kube.Client over a fake clientset holding objects and the
// Secret pg-styrmin-action (key superuser_password), in which every Job created
// ends at once: completed, or failed with a pod that exited with code 3 (the
// fake serves "fake logs" as every pod's log).
func jobsEnding(t *testing.T, succeed bool, objects ...runtime.Object) *kube.Client {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg-styrmin-action", Namespace: ns}, Data: map[string][]byte{"superuser_password": []byte("hunter2-very-secret")}}
	clientset := fake.NewClientset(append(objects, secret)...)
	clientset.PrependReactor("create", "jobs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		job := action.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		job.UID = types.UID("uid-" + job.Name + "-new")
		job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": string(job.UID)}}
		end := batchv1.JobComplete
		if !succeed {
			end = batchv1.JobFailed
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: job.Name + "-x1", Namespace: job.Namespace, Labels: job.Spec.Selector.MatchLabels},
				Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{
					Name: kube.ActionJobContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}},
				}}},
			}
			require.NoError(t, clientset.Tracker().Add(pod))
		}
		job.Status.Conditions = []batchv1.JobCondition{{Type: end, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}
		return false, nil, nil // the tracker stores the Job as changed here
	})
	return &kube.Client{Clientset: clientset}
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
		SecretEnv: map[string]kube.SecretRef{"PGPASSWORD": {Secret: "pg-styrmin-action", Key: "superuser_password"}},
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
	pod := job.Spec.Template.Spec
	require.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy)
	require.Len(t, pod.Containers, 1)
	require.Equal(t, "postgres:16", pod.Containers[0].Image)
	require.Equal(t, []string{"sh", "-c", "set -e\npg_dumpall > /backup/all.sql\necho done"}, pod.Containers[0].Command)
	require.Equal(t, []corev1.EnvVar{
		{Name: "PGHOST", Value: "pg-primary"},
		{Name: "PGPASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "pg-styrmin-action"}, Key: "superuser_password"}}},
		{Name: "PGUSER", Value: "postgres"},
	}, pod.Containers[0].Env)
	spec, err := json.Marshal(job)
	require.NoError(t, err)
	require.NotContains(t, string(spec), "hunter2", "the Job's spec never holds a secret value")
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
			require.Equal(t, types.UID("uid-pg-job-new"), job.UID, "the new Job replaced the old one")
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := jobsEnding(t, true, tt.existing)
			out, err := client.RunActionJob(context.Background(), backup())
			require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
			require.Contains(t, styrmin.ErrorMessage(err), tt.want)
			require.Empty(t, out.DeletedJob)
			job, err := client.Clientset.BatchV1().Jobs(ns).Get(context.Background(), "pg-job", metav1.GetOptions{})
			require.NoError(t, err)
			require.Equal(t, tt.existing, job, "the Job is left as it was")
		})
	}
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
		{"secret without key", func(j *kube.ActionJob) { j.SecretEnv = map[string]kube.SecretRef{"PW": {Secret: "s"}} }, "secret_env"},
		{"both env and secret_env", func(j *kube.ActionJob) { j.Env = map[string]string{"PGPASSWORD": "x"} }, "secret_env"},
		{"no such Secret", func(j *kube.ActionJob) { j.SecretEnv = map[string]kube.SecretRef{"PW": {Secret: "gone", Key: "k"}} }, "secret_env"},
		{"no such key in the Secret", func(j *kube.ActionJob) {
			j.SecretEnv = map[string]kube.SecretRef{"PW": {Secret: "pg-styrmin-action", Key: "admin_password"}}
		}, "secret_env"},
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
			jobs, err := client.Clientset.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
			require.NoError(t, err)
			require.Empty(t, jobs.Items, "nothing created")
		})
	}
}

func TestRunActionJobEndsWithItsContext(t *testing.T) {
	t.Parallel()
	client := fakeClient(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg-styrmin-action", Namespace: ns}, Data: map[string][]byte{"superuser_password": nil}}) // its Jobs never end
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

func TestEnsureActionSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "other-styrmin-action", Namespace: ns}, Data: map[string][]byte{"k": []byte("v")}}
	client := fakeClient(theirs)

	name, err := client.EnsureActionSecret(ctx, ns, "pg", map[string]string{"superuser_password": "one", "old": "x"})
	require.NoError(t, err)
	require.Equal(t, "pg-styrmin-action", name)
	require.Equal(t, kube.ActionSecretName("pg"), name)

	name, err = client.EnsureActionSecret(ctx, ns, "pg", map[string]string{"superuser_password": "two"})
	require.NoError(t, err)
	secret, err := client.Clientset.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"app.kubernetes.io/managed-by": "styrmin"}, secret.Labels)
	require.Equal(t, map[string][]byte{"superuser_password": []byte("two")}, secret.Data, "the data are replaced as a whole")

	_, err = client.EnsureActionSecret(ctx, ns, "other", map[string]string{"k": "mine"})
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	secret, err = client.Clientset.CoreV1().Secrets(ns).Get(ctx, "other-styrmin-action", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, theirs, secret, "a Secret Styrmin did not create is left alone")
	_, err = client.Clientset.CoreV1().Secrets(ns).Get(ctx, "missing", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err))
}
