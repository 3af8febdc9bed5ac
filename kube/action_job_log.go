package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/redact"
)

// logFollower streams the log of an action Job's pod into a tailBuffer while
// the Job runs.
type logFollower struct {
	buf  tailBuffer
	stop context.CancelFunc
	done chan struct{}
}

// followJobLog starts following the log of job's pod, until tail is called.
func (c *Client) followJobLog(ctx context.Context, job *batchv1.Job) *logFollower {
	ctx, cancel := context.WithCancel(ctx)
	f := &logFollower{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		c.streamJobLog(ctx, job, &f.buf)
	}()
	return f
}

// tail stops following and returns the tail of the output seen, redacted by r.
func (f *logFollower) tail(r *redact.Redactor) (string, int) {
	f.stop()
	<-f.done
	return f.buf.Tail(r)
}

// streamJobLog waits until job has a pod whose container has started, then
// copies its log, followed, into w until the container ends or ctx ends.
// The cluster not answering meanwhile ends it too: w keeps what it got.
func (c *Client) streamJobLog(ctx context.Context, job *batchv1.Job, w io.Writer) {
	for ctx.Err() == nil {
		if pod, err := c.jobPod(ctx, job); err == nil && pod.Status.Phase != corev1.PodPending {
			stream, err := c.podLog(ctx, pod, true)
			if err == nil {
				_, _ = io.Copy(w, stream) // an error ends the stream: what was read is kept
				_ = stream.Close()
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(pollInterval / 4):
		}
	}
}

// podLog opens the log of pod's action container, followed or not.
func (c *Client) podLog(ctx context.Context, pod *corev1.Pod, follow bool) (io.ReadCloser, error) {
	return c.Clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: ActionJobContainer, Follow: follow}).Stream(ctx)
}

// jobOutcome completes out for the ended job: on failure, why, and the tail
// of the failed pod's log, read again in full when the pod is still there,
// else what log saw while the Job ran.
func (c *Client) jobOutcome(ctx context.Context, job *batchv1.Job, spec ActionJob, log *logFollower, out JobOutcome) JobOutcome {
	if jobCondition(job, batchv1.JobComplete) != nil {
		out.Succeeded = true
		out.Message = fmt.Sprintf("The Job %s completed.", job.Name)
		out.Tail, out.TailLines, _, _ = c.finalTail(ctx, job, spec.Redactor, log) // a log that cannot be read leaves a success without output
		return out
	}
	failed := jobCondition(job, batchv1.JobFailed)
	pod, err := c.jobPod(ctx, job)
	why := ""
	switch {
	case failed.Reason == batchv1.JobReasonDeadlineExceeded:
		why = fmt.Sprintf("it was stopped after its time limit of %s", spec.Timeout)
	case err == nil && exitCode(pod) != nil:
		why = fmt.Sprintf("its commands exited with code %d", *exitCode(pod))
	case err == nil && pod.Status.Message != "":
		why = "its pod failed: " + pod.Status.Message
	default:
		why = fmt.Sprintf("%s: %s", failed.Reason, failed.Message)
	}
	out.Message = fmt.Sprintf("The Job %s failed: %s.", job.Name, why)
	var seen bool
	out.Tail, out.TailLines, seen, err = c.finalTail(ctx, job, spec.Redactor, log)
	switch {
	case seen:
		out.Message += " Its pod is gone: the output is what Styrmin read while it ran."
	case err != nil:
		out.Message += fmt.Sprintf(" Its output could not be read: %v.", err)
	}
	return out
}

// finalTail stops log and returns the tail of job's pod's log, read again in
// full while the pod is still there (or what log saw, when that holds more of
// the end: moreOfTheEnd), else the end of what log saw while the Job ran
// (seen true); err says why neither could be read.
func (c *Client) finalTail(ctx context.Context, job *batchv1.Job, r *redact.Redactor, log *logFollower) (tail string, lines int, seen bool, err error) {
	seenTail, seenLines := log.tail(r)
	pod, err := c.jobPod(ctx, job)
	if err == nil {
		var stream io.ReadCloser
		if stream, err = c.podLog(ctx, pod, false); err == nil {
			tail, lines, err = readTail(stream, r)
			err = errors.Join(err, stream.Close())
		}
	}
	if err != nil && seenLines > 0 {
		return seenTail, seenLines, true, nil
	}
	if err != nil {
		return "", 0, false, err
	}
	tail, lines = moreOfTheEnd(tail, lines, seenTail, seenLines)
	return tail, lines, false, nil
}

// moreOfTheEnd returns the tail that holds more of the log's end: the final
// read's (tail), unless the follower's (seen) ends with it and has more
// lines. The kubelet serves a container's log from its latest file only, and
// rotates that file past a size (10 MiB by default) while the container runs:
// after a rotation near the end, the latest file holds only what came after
// it, or nothing, while the follower read across the rotation. A follower
// that stopped early does not end with the final read's tail.
func moreOfTheEnd(tail string, lines int, seen string, seenLines int) (string, int) {
	if seenLines > lines && strings.HasSuffix(seen, tail) {
		return seen, seenLines
	}
	return tail, lines
}

// jobPod returns job's most recent failed pod, else its most recent pod; an
// error when it has none.
func (c *Client) jobPod(ctx context.Context, job *batchv1.Job) (*corev1.Pod, error) {
	selector, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("selector of Job %s: %w", job.Name, err)
	}
	pods, err := c.Clientset.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, fmt.Errorf("list the pods of Job %s: %w", job.Name, err)
	}
	if len(pods.Items) == 0 {
		return nil, errors.New("it has no pod left")
	}
	sort.SliceStable(pods.Items, func(a, b int) bool {
		pa, pb := &pods.Items[a], &pods.Items[b]
		if fa, fb := pa.Status.Phase == corev1.PodFailed, pb.Status.Phase == corev1.PodFailed; fa != fb {
			return fa
		}
		return pb.CreationTimestamp.Before(&pa.CreationTimestamp)
	})
	return &pods.Items[0], nil
}

// exitCode is the exit code of pod's action container once it has terminated.
func exitCode(pod *corev1.Pod) *int32 {
	for _, s := range pod.Status.ContainerStatuses {
		if s.Name == ActionJobContainer && s.State.Terminated != nil {
			return &s.State.Terminated.ExitCode
		}
	}
	return nil
}
