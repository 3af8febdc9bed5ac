package kube_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"runtime"
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
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/redact"
)

// These tests run action Jobs on the local cluster's real node, in busybox
// (on the local cluster, the stand-in built from Debian's busybox package).

// localJobs connects to the local cluster and gives the test its own
// namespace, deleted at the end.
func localJobs(t *testing.T) (*kube.Client, string) {
	t.Helper()
	client, err := kube.Connect(kubetest.Kubeconfig(t), "")
	require.NoError(t, err)
	namespace := "jobs-" + rand.String(6)
	ctx := context.Background()
	_, err = client.EnsureNamespace(ctx, namespace, true, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, client.DeleteNamespace(context.Background(), namespace)) })
	// Pods are refused until the namespace's default service account exists.
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.Clientset.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	require.NoError(t, err, "default service account of %s", namespace)
	return client, namespace
}

// busyboxJob is an ActionJob that runs commands with busybox's sh.
func busyboxJob(namespace string, commands ...string) kube.ActionJob {
	return kube.ActionJob{Namespace: namespace, Release: "app", Commands: commands, Image: "busybox:1.36", Timeout: 2 * time.Minute}
}

func TestLocalActionJobSucceedsAndIsKept(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	ctx := context.Background()
	spec := busyboxJob(namespace, `echo "hello $GREETING"`, `test "$GREETING" = hi`, `echo "key s3cret-Value-16c"`)
	spec.Env = map[string]string{"GREETING": "hi"}
	spec.Redactor = redact.New("s3cret-Value-16c")

	out, err := client.RunActionJob(ctx, spec)
	require.NoError(t, err)
	require.Equal(t, kube.JobOutcome{Job: "app-job", Succeeded: true, Message: "The Job app-job completed.",
		Tail: "hello hi\nkey <redacted>", TailLines: 2}, out, "a Job that succeeded answers with the end of its output, redacted")

	job, err := client.Clientset.BatchV1().Jobs(namespace).Get(ctx, "app-job", metav1.GetOptions{})
	require.NoError(t, err, "the Job stays after it ends")
	pods := jobPods(t, client, job)
	require.Len(t, pods, 1)
	require.Equal(t, "true", pods[0].Labels[kube.ActionJobLabel])
	require.Equal(t, corev1.PodSucceeded, pods[0].Status.Phase)
}

func TestLocalActionJobFailsWithABoundedTailInFlatMemory(t *testing.T) {
	// Not parallel: it measures this process's heap.
	client, namespace := localJobs(t)
	ctx := context.Background()
	// 50 MB of 1000-byte lines: far more than 200 lines and 64 KiB. The
	// kubelet rotates the log past 10 MiB, checking every 10 s; lines the
	// container writes while a rotation is under way go to the rotated
	// file, which neither the kubelet's follow nor a read serves (CI saw a
	// tail without its last lines once). The pause lets the rotation the
	// flood causes end before the last 300 KB (a file of their own, which
	// the kubelet serves whole: more than the tail's bounds). What the test
	// holds Styrmin to is the tail's bounds and end, not the kubelet's race.
	spec := busyboxJob(namespace, `yes "$(printf '%0999d' 0)" | head -c 50000000`, `sleep 11`,
		`yes "$(printf '%0999d' 1)" | head -n 300`, `echo`, `echo the end`, `exit 3`)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	out, err := client.RunActionJob(ctx, spec)
	close(done)
	require.NoError(t, err)
	growth := int64(peak.Load()) - int64(before.HeapInuse)
	t.Logf("heap in use: %d KiB before, peak %d KiB (growth %d KiB) while reading a 50 MB log", before.HeapInuse>>10, peak.Load()>>10, growth>>10)
	require.Less(t, growth, int64(32<<20), "memory stays flat whatever the size of the log")

	require.False(t, out.Succeeded)
	require.Equal(t, "The Job app-job failed: its commands exited with code 3.", out.Message)
	require.LessOrEqual(t, out.TailLines, kube.TailMaxLines)
	require.LessOrEqual(t, len(out.Tail), kube.TailMaxBytes)
	require.Greater(t, len(out.Tail), kube.TailMaxBytes-1000, "the tail is as long as the bounds allow")
	require.True(t, strings.HasSuffix(out.Tail, "\n\nthe end"), "the tail ends with the last lines: %q", out.Tail[len(out.Tail)-40:])
	require.Equal(t, strings.Count(out.Tail, "\n")+1, out.TailLines)

	// The next call deletes the ended Job and its pods, then runs its own.
	old, err := client.Clientset.BatchV1().Jobs(namespace).Get(ctx, "app-job", metav1.GetOptions{})
	require.NoError(t, err)
	out, err = client.RunActionJob(ctx, busyboxJob(namespace, "true"))
	require.NoError(t, err)
	require.Equal(t, kube.JobOutcome{Job: "app-job", Succeeded: true, DeletedJob: "app-job", Message: "The Job app-job completed."}, out,
		"a Job that printed nothing has no output")
	require.Empty(t, jobPods(t, client, old), "the ended Job's pods are gone")
	current, err := client.Clientset.BatchV1().Jobs(namespace).Get(ctx, "app-job", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotEqual(t, old.UID, current.UID)
}

func TestLocalActionJobKeepsTheEndOfALongLine(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	// One line of 100000 bytes, CRLF-terminated: the tail is its last 64 KiB.
	out, err := client.RunActionJob(context.Background(), busyboxJob(namespace, `head -c 99999 /dev/zero | tr '\0' x`, `printf 'y\r\n'`, `exit 2`))
	require.NoError(t, err)
	require.False(t, out.Succeeded)
	require.Len(t, out.Tail, kube.TailMaxBytes)
	require.True(t, out.Tail == strings.Repeat("x", kube.TailMaxBytes-1)+"y", "the tail is the end of the line: %q...%q", out.Tail[:20], out.Tail[len(out.Tail)-20:])
	require.Equal(t, 1, out.TailLines)
}

func TestLocalActionJobIsRefusedWhileTheEarlierOneRuns(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = client.RunActionJob(ctx, busyboxJob(namespace, "sleep 30")) }() // stopped waiting for by cancel
	var running *batchv1.Job
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		job, err := client.Clientset.BatchV1().Jobs(namespace).Get(ctx, "app-job", metav1.GetOptions{})
		running = job
		return err == nil && job.Status.Active > 0, nil
	})
	require.NoError(t, err, "the first Job runs")

	out, err := client.RunActionJob(context.Background(), busyboxJob(namespace, "true"))
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.Equal(t, "The Job app-job of an earlier action is still running in namespace "+namespace+"; try again once it has ended.", styrmin.ErrorMessage(err))
	require.Empty(t, out.DeletedJob)
	job, err := client.Clientset.BatchV1().Jobs(namespace).Get(context.Background(), "app-job", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, running.UID, job.UID, "the running Job is left alone")
	require.Nil(t, job.DeletionTimestamp)
}

func TestLocalActionJobIsRefusedForAJobNoActionCreated(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	ctx := context.Background()
	// No action label: someone else's Job, still running.
	theirs := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "app-job", Namespace: namespace},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "main", Image: "busybox:1.36", Command: []string{"sleep", "600"}}},
		}}},
	}
	theirs, err := client.Clientset.BatchV1().Jobs(namespace).Create(ctx, theirs, metav1.CreateOptions{})
	require.NoError(t, err)

	_, err = client.RunActionJob(ctx, busyboxJob(namespace, "true"))
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.Equal(t, "A Job named app-job exists in namespace "+namespace+" that no driver action created; Styrmin leaves it alone — delete or rename it.", styrmin.ErrorMessage(err))
	job, err := client.Clientset.BatchV1().Jobs(namespace).Get(ctx, "app-job", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, theirs.UID, job.UID, "their Job is left alone")
	require.Nil(t, job.DeletionTimestamp)
}

func TestLocalActionJobReadsSecretEnvFromItsOwnSecret(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	ctx := context.Background()
	const password = "s3cret-Value-16c"

	// The command prints the length of the value, never the value.
	spec := busyboxJob(namespace, `echo "PGPASSWORD has ${#PGPASSWORD} characters"`, `exit 4`)
	spec.SecretEnv = map[string]string{"PGPASSWORD": password}
	out, err := client.RunActionJob(ctx, spec)
	require.NoError(t, err)
	require.False(t, out.Succeeded)
	require.Equal(t, "PGPASSWORD has 16 characters", out.Tail)
	require.Equal(t, 1, out.TailLines)

	job, err := client.Clientset.BatchV1().Jobs(namespace).Get(ctx, "app-job", metav1.GetOptions{})
	require.NoError(t, err)
	stored, err := json.Marshal(job)
	require.NoError(t, err)
	require.NotContains(t, string(stored), password, "the Job's spec holds a reference, not the value")
	secretName := job.Spec.Template.Spec.Containers[0].Env[0].ValueFrom.SecretKeyRef.Name
	secret, err := client.Clientset.CoreV1().Secrets(namespace).Get(ctx, secretName, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, job.UID, secret.OwnerReferences[0].UID, "the Job owns its Secret")

	// The next call deletes the ended Job, and Kubernetes its Secret with it.
	out, err = client.RunActionJob(ctx, busyboxJob(namespace, "true"))
	require.NoError(t, err)
	require.Equal(t, "app-job", out.DeletedJob)
	_, err = client.Clientset.CoreV1().Secrets(namespace).Get(ctx, secretName, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the deleted Job's Secret is gone: %v", err)

	// Deleting the deployment's action Job leaves no Secret with a value.
	spec.Commands = []string{"true"}
	_, err = client.RunActionJob(ctx, spec)
	require.NoError(t, err)
	require.NoError(t, client.DeleteActionJob(ctx, namespace, "app"))
	secrets, err := client.Clientset.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.ActionJobLabel})
	require.NoError(t, err)
	require.Empty(t, secrets.Items)
}

func TestLocalActionJobRacingCallsOneProceeds(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	ctx := context.Background()
	_, err := client.RunActionJob(ctx, busyboxJob(namespace, "true")) // an ended Job both calls see
	require.NoError(t, err)
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			spec := busyboxJob(namespace, fmt.Sprintf("echo call %d", i), "sleep 2", "exit 5")
			spec.SecretEnv = map[string]string{"VALUE": fmt.Sprintf("value-of-call-%d", i)}
			out, err := client.RunActionJob(ctx, spec)
			if err == nil && out.Tail != fmt.Sprintf("call %d", i) {
				err = fmt.Errorf("call %d read another output: %q", i, out.Tail)
			}
			errs <- err
		}()
	}
	var refused []error
	for range 2 {
		if err := <-errs; err != nil {
			refused = append(refused, err)
		}
	}
	require.Len(t, refused, 1, "exactly one call proceeds: %v", refused)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(refused[0]), "%v", refused[0])
	secrets, err := client.Clientset.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.ActionJobLabel})
	require.NoError(t, err)
	require.Len(t, secrets.Items, 1, "the refused call left no Secret")
}

func TestLocalActionJobStoppedByItsTimeLimit(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	spec := busyboxJob(namespace, "echo started", "echo password=hunter2-limit", "sleep 60")
	// The limit counts from the Job's start, the pod's scheduling and the
	// container's start included: 3 s was once over before a node loaded by
	// the whole test run had started the container, leaving nothing to read.
	spec.Timeout = 20 * time.Second
	out, err := client.RunActionJob(context.Background(), spec)
	require.NoError(t, err)
	require.False(t, out.Succeeded)
	require.True(t, strings.HasPrefix(out.Message, "The Job app-job failed: it was stopped after its time limit of 20s."), out.Message)
	// Kubernetes deletes the pod of a Job past its deadline (the local
	// cluster at once): the tail is what was read while it ran, redacted.
	require.Equal(t, "started\npassword=<redacted>", out.Tail, out.Message)
	require.Equal(t, 2, out.TailLines)
}

func TestLocalActionJobStopsWhenItsCallerGoesAway(t *testing.T) {
	t.Parallel()
	client, namespace := localJobs(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // the action was cancelled once its Job has printed
		_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			pods, err := client.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.ActionJobLabel})
			if err != nil || len(pods.Items) == 0 {
				return false, nil
			}
			log, err := client.Clientset.CoreV1().Pods(namespace).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).DoRaw(ctx)
			return err == nil && strings.Contains(string(log), "working"), nil
		})
		cancel()
	}()
	first, err := client.RunActionJob(ctx, busyboxJob(namespace, "echo working", "sleep 60"))
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "the Job was told to stop")
	require.Equal(t, "Styrmin stopped waiting for the Job app-job: the action ended before it (cancelled, timed out or killed).", first.Message)
	require.Equal(t, "working", first.Tail, "the output seen while it ran")

	var job *batchv1.Job
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		job, err = client.Clientset.BatchV1().Jobs(namespace).Get(ctx, "app-job", metav1.GetOptions{})
		return err == nil && len(job.Status.Conditions) > 0 && job.Status.Conditions[len(job.Status.Conditions)-1].Type == batchv1.JobFailed, err
	})
	require.NoError(t, err, "the Job ends failed, long before its 2 minutes")
	out, err := client.RunActionJob(context.Background(), busyboxJob(namespace, "true"))
	require.NoError(t, err)
	require.Equal(t, "app-job", out.DeletedJob, "and the next call replaces it")
}

// jobPods lists the pods of job that still exist.
func jobPods(t *testing.T, client *kube.Client, job *batchv1.Job) []corev1.Pod {
	t.Helper()
	selector, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	require.NoError(t, err)
	pods, err := client.Clientset.CoreV1().Pods(job.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: selector.String()})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	return pods.Items
}

func TestLocalActionJobKeepsItsOutputWhenTheClusterStopsAnswering(t *testing.T) {
	t.Parallel()
	direct, namespace := localJobs(t)
	// The client under test reaches the API server through a proxy that the
	// test cuts once the Job has printed for two seconds.
	proxy := newCuttableProxy(t, strings.TrimPrefix(direct.Config.Host, "https://"))
	config := rest.CopyConfig(direct.Config)
	config.Host = "https://" + proxy.addr()
	client, err := kube.New(config)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			pods, err := direct.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: kube.ActionJobLabel})
			if err != nil || len(pods.Items) == 0 {
				return false, nil
			}
			log, err := direct.Clientset.CoreV1().Pods(namespace).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).DoRaw(ctx)
			return err == nil && strings.Contains(string(log), "tick 10\n"), nil
		})
		proxy.cut()
		time.Sleep(3 * time.Second) // the cluster stays silent until the action's own time ends
		cancel()
	}()
	out, err := client.RunActionJob(ctx, busyboxJob(namespace, `i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo "tick $i"; sleep 0.2; done`))
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "could not be told to stop", "the cluster does not answer")
	// The output seen before the cluster stopped answering: its first lines.
	require.NotEmpty(t, out.Tail)
	for i, line := range strings.Split(out.Tail, "\n") {
		require.Equal(t, fmt.Sprintf("tick %d", i+1), line)
	}
	require.Equal(t, "Styrmin stopped waiting for the Job app-job: the action ended before it (cancelled, timed out or killed).", out.Message)
}

// cuttableProxy forwards TCP connections to an address until it is cut:
// then it closes every connection and refuses new ones.
type cuttableProxy struct {
	listener net.Listener
	mu       sync.Mutex
	conns    []net.Conn
}

func newCuttableProxy(t *testing.T, target string) *cuttableProxy {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cuttableProxy{listener: listener}
	t.Cleanup(p.cut)
	go func() {
		for {
			in, err := listener.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				_ = in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
			go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
		}
	}()
	return p
}

func (p *cuttableProxy) addr() string { return p.listener.Addr().String() }

func (p *cuttableProxy) cut() {
	_ = p.listener.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}
