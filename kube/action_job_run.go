package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/redact"
)

// jobEndGrace is how long past its time limit RunActionJob waits for the
// cluster to end a Job before it gives up waiting.
const jobEndGrace = 2 * time.Minute

// JobOutcome is how an action Job ended.
type JobOutcome struct {
	// Job is the name of the Job that ran.
	Job string
	// Succeeded is true when the Job completed, false when it failed.
	Succeeded bool
	// DeletedJob names the ended Job of an earlier call that this call
	// deleted before creating its own; "" when there was none. It is set
	// also when the call fails afterwards.
	DeletedJob string
	// Tail is the end of the pod's output (the failed pod's when the Job
	// failed), redacted by the spec's Redactor, then bounded (see
	// tailBuffer.Tail); with an error, the end of the output so far.
	Tail string
	// TailLines is the number of lines in Tail.
	TailLines int
	// Message says in one sentence how the Job ended, or how Styrmin
	// stopped waiting for it; "" when the call was refused.
	Message string
}

// jobSetupGrace is how long a suspended action Job may wait for its call to
// create its Secret and start it; past it, the call is taken to have died,
// and the next call deletes the Job as it deletes an ended one.
const jobSetupGrace = 2 * time.Minute

// RunActionJob runs spec's commands in the Job ActionJobName(spec.Release) of
// spec.Namespace and waits until it ends. An ended Job of that name (from an
// earlier call) is first deleted with its pods and its Secret, named in
// DeletedJob and given to spec.RecordDeleted. A Job that fails is not an
// error: the outcome has Succeeded false, the Message and the Tail of the
// failed pod's log (see Tail). A Job stopped by its time limit (spec.Timeout)
// fails the same way.
//
// The pod's log is followed while the Job runs, keeping only its end, so
// that a Job whose pod is gone (Kubernetes deletes it at the time limit) or
// that Styrmin stops waiting for still has the Tail of the output seen so
// far: the outcome has it, and a Message, also with an error.
//
// When spec.SecretEnv is set, the Job is created suspended, then its Secret,
// owned by the Job, then the Job is started: no other call ever writes that
// Secret, and deleting the Job deletes it.
//
// Errors: EINVALID for a bad spec; ECONFLICT, creating, changing and deleting
// nothing, when a Job of that name is still running (also while someone
// deletes it), has no ActionJobLabel (no action created it), or is created
// by another call meanwhile; EUNAVAILABLE when the cluster does not answer or
// does not end the Job in time; ctx's error when ctx ends first (the action
// was cancelled or its process ended): the Job is then told to stop, its
// time limit set to one second, and it ends failed, kept for the next call
// to delete.
func (c *Client) RunActionJob(ctx context.Context, spec ActionJob) (JobOutcome, error) {
	if err := spec.validate(); err != nil {
		return JobOutcome{}, err
	}
	name := ActionJobName(spec.Release)
	out := JobOutcome{Job: name}
	deleted, err := c.clearActionJob(ctx, spec.Namespace, name)
	if deleted { // recorded whatever happens next, even a wait for it to go that fails
		out.DeletedJob = name
		if spec.RecordDeleted != nil {
			if rerr := spec.RecordDeleted(context.WithoutCancel(ctx), name); rerr != nil {
				err = errors.Join(rerr, err)
			}
		}
	}
	if err != nil {
		return out, err
	}
	created, err := c.createActionJob(ctx, spec)
	if err != nil {
		return out, err
	}
	log := c.followJobLog(ctx, created)
	ended, err := c.waitJobEnded(ctx, created, spec.Timeout+jobEndGrace)
	if err != nil { // the end of the output so far, whatever became of the Job
		out.Tail, out.TailLines = c.tailSoFar(ctx, created, spec.Redactor, log)
		if ctx.Err() != nil {
			out.Message = fmt.Sprintf("Styrmin stopped waiting for the Job %s: the action ended before it (cancelled, timed out or killed).", name)
			return out, c.stopActionJob(ctx, created, err)
		}
		out.Message = fmt.Sprintf("Styrmin stopped waiting for the Job %s: %s.", name, styrmin.ErrorMessage(err))
		c.markJobDone(ctx, created)
		return out, err
	}
	out = c.jobOutcome(ctx, ended, spec, log, out)
	c.markJobDone(ctx, ended)
	return out, nil
}

// tailSoFar is the end of the output of job, which Styrmin stops waiting
// for: its log as it is now, or what log saw while it ran.
func (c *Client) tailSoFar(ctx context.Context, job *batchv1.Job, r *redact.Redactor, log *logFollower) (string, int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobStopTimeout)
	defer cancel()
	tail, lines, _, _ := c.finalTail(ctx, job, r, log) // an unreadable log has no tail
	return tail, lines
}

// createActionJob creates the Job of spec, with its Secret when it has
// SecretEnv, and returns it running. Another call's Job of the same name is
// an ECONFLICT error.
func (c *Client) createActionJob(ctx context.Context, spec ActionJob) (*batchv1.Job, error) {
	name, secret := ActionJobName(spec.Release), ""
	if len(spec.SecretEnv) > 0 {
		secret = actionJobSecretName(spec.Release)
	}
	created, err := c.Clientset.BatchV1().Jobs(spec.Namespace).Create(ctx, spec.job(secret), metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil, styrmin.Errorf(styrmin.ECONFLICT, "The Job %s was created by another call meanwhile; try again once it has ended.", name)
	case err != nil:
		return nil, unavailable(err, "Could not create the Job %s in namespace %s.", name, spec.Namespace)
	case secret == "":
		return created, nil
	}
	if err := c.createJobSecret(ctx, created, secret, spec.SecretEnv); err != nil {
		return nil, c.dropJob(ctx, created, err)
	}
	if err := c.startJob(ctx, created); err != nil {
		return nil, c.dropJob(ctx, created, err)
	}
	return created, nil
}

// clearActionJob deletes the Job name of namespace, with its pods and its
// Secret, when it is an action Job that has ended, waits until it is gone and
// reports whether it deleted one. It refuses, deleting nothing, a Job that
// has no label or has not ended, also while someone else deletes it; it waits
// for an ended Job that someone else deletes, without deleting it.
func (c *Client) clearActionJob(ctx context.Context, namespace, name string) (deleted bool, err error) {
	jobs := c.Clientset.BatchV1().Jobs(namespace)
	existing, err := jobs.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, unavailable(err, "Could not read the Job %s in namespace %s.", name, namespace)
	case existing.Labels[ActionJobLabel] != ActionJobLabelValue:
		return false, styrmin.Errorf(styrmin.ECONFLICT, "A Job named %s exists in namespace %s that no driver action created; Styrmin leaves it alone — delete or rename it.", name, namespace)
	case !collected(existing) && !abandoned(existing):
		return false, styrmin.Errorf(styrmin.ECONFLICT, "The Job %s of an earlier action is still running in namespace %s; try again once it has ended.", name, namespace)
	case existing.DeletionTimestamp != nil:
		return false, c.waitJobGone(ctx, namespace, name, existing.UID)
	}
	err = jobs.Delete(ctx, name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationForeground),
		Preconditions:     &metav1.Preconditions{UID: &existing.UID}, // exactly the Job judged above
	})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case apierrors.IsConflict(err):
		return false, styrmin.Errorf(styrmin.ECONFLICT, "The Job %s changed while Styrmin was deleting it; try again.", name)
	case err != nil:
		return false, unavailable(err, "Could not delete the ended Job %s in namespace %s.", name, namespace)
	}
	return true, c.waitJobGone(ctx, namespace, name, existing.UID)
}

// DeleteActionJob deletes the action Job of release in namespace, ended or
// not, with its pods and its Secret, and waits until it is gone, so that a
// deleted deployment leaves no Secret with its values behind. A Job of that
// name that no action created is left alone.
func (c *Client) DeleteActionJob(ctx context.Context, namespace, release string) error {
	name := ActionJobName(release)
	jobs := c.Clientset.BatchV1().Jobs(namespace)
	existing, err := jobs.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return unavailable(err, "Could not read the Job %s in namespace %s.", name, namespace)
	case existing.Labels[ActionJobLabel] != ActionJobLabelValue:
		return nil
	}
	err = jobs.Delete(ctx, name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationForeground),
		Preconditions:     &metav1.Preconditions{UID: &existing.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return unavailable(err, "Could not delete the Job %s in namespace %s.", name, namespace)
	}
	return c.waitJobGone(ctx, namespace, name, existing.UID)
}

// jobDoneAnnotation marks an ended action Job whose call has read its
// outcome (or stopped waiting for it): from then on, the next call may
// delete it. Until then, another call deleting it would take its outcome
// from the call that created it.
const jobDoneAnnotation = "styrmin.io/action-job-done"

// collected reports whether job has ended and its call is done with it:
// marked so, or ended more than jobEndGrace ago (its call died).
func collected(job *batchv1.Job) bool {
	end := jobCondition(job, batchv1.JobComplete)
	if end == nil {
		end = jobCondition(job, batchv1.JobFailed)
	}
	return end != nil && (job.Annotations[jobDoneAnnotation] == "true" || time.Since(end.LastTransitionTime.Time) > jobEndGrace)
}

// markJobDone marks job as read by its call (see jobDoneAnnotation). Should
// the cluster not answer, the Job is taken as done jobEndGrace after its end.
func (c *Client) markJobDone(ctx context.Context, job *batchv1.Job) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobStopTimeout)
	defer cancel()
	patch := fmt.Appendf(nil, `{"metadata":{"uid":%q,"annotations":{%q:"true"}}}`, job.UID, jobDoneAnnotation)
	_, _ = c.Clientset.BatchV1().Jobs(job.Namespace).Patch(ctx, job.Name, types.MergePatchType, patch, metav1.PatchOptions{}) // see collected
}

// abandoned reports whether job is a suspended action Job whose call died
// before it could start it (see jobSetupGrace).
func abandoned(job *batchv1.Job) bool {
	return ptr.Deref(job.Spec.Suspend, false) && job.Status.StartTime == nil &&
		time.Since(job.CreationTimestamp.Time) > jobSetupGrace
}

// jobStopTimeout bounds the request that stops a Job whose caller went away.
const jobStopTimeout = 10 * time.Second

// stopActionJob ends job, whose caller's ctx ended, by setting its time limit
// to one second (counted from its start, so already past), and returns waitErr
// with what became of the Job.
func (c *Client) stopActionJob(ctx context.Context, job *batchv1.Job, waitErr error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobStopTimeout)
	defer cancel()
	// The uid makes the patch apply to this very Job only; no call waits for it any more.
	patch := fmt.Appendf(nil, `{"metadata":{"uid":%q,"annotations":{%q:"true"}},"spec":{"activeDeadlineSeconds":1}}`, job.UID, jobDoneAnnotation)
	_, err := c.Clientset.BatchV1().Jobs(job.Namespace).Patch(ctx, job.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("%w; the Job could not be told to stop, it ends at its time limit (%w)", waitErr, err)
	}
	return fmt.Errorf("%w; the Job was told to stop", waitErr)
}

// waitJobGone waits until the Job with uid (and so, foreground deletion, its pods) no longer exists.
func (c *Client) waitJobGone(ctx context.Context, namespace, name string, uid types.UID) error {
	waitCtx, cancel := context.WithTimeout(ctx, jobEndGrace)
	defer cancel()
	err := wait.PollUntilContextCancel(waitCtx, pollInterval/4, true, func(ctx context.Context) (bool, error) {
		job, err := c.Clientset.BatchV1().Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return true, nil
		case err != nil:
			return false, nil // the API server briefly away: ask again
		}
		return job.UID != uid, nil
	})
	if err != nil {
		return waitError(ctx, name, err, "The Job %s in namespace %s was not gone with its pods after %s.", name, namespace, jobEndGrace)
	}
	return nil
}

// waitJobEnded polls job until it completes or fails, at most limit.
func (c *Client) waitJobEnded(ctx context.Context, job *batchv1.Job, limit time.Duration) (*batchv1.Job, error) {
	waitCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var (
		last    = job
		lastErr error
	)
	err := wait.PollUntilContextCancel(waitCtx, pollInterval/2, false, func(ctx context.Context) (bool, error) {
		got, err := c.Clientset.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) || (err == nil && got.UID != job.UID):
			return false, styrmin.Errorf(styrmin.ECONFLICT, "The Job %s was deleted by someone else before it ended.", job.Name)
		case err != nil:
			lastErr = err
			return false, nil
		}
		last, lastErr = got, nil
		return jobEnded(got), nil
	})
	var conflict *styrmin.Error
	switch {
	case err == nil:
		return last, nil
	case errors.As(err, &conflict):
		return nil, err
	case lastErr != nil:
		err = fmt.Errorf("%w (last: %w)", err, lastErr)
	}
	return nil, waitError(ctx, job.Name, err, "The Job %s in namespace %s had not ended %s after its time limit.", job.Name, job.Namespace, jobEndGrace)
}

// waitError is the error of a wait for the Job name that stopped: ctx's
// error when the caller's ctx ended, else EUNAVAILABLE with msg (the wait's
// own limit passed).
func waitError(ctx context.Context, name string, err error, msg string, args ...any) error {
	if ctx.Err() != nil {
		return fmt.Errorf("kube: stopped waiting for the Job %s: %w", name, ctx.Err())
	}
	return unavailable(err, msg, args...)
}

// jobEnded reports whether job has completed or failed.
func jobEnded(job *batchv1.Job) bool {
	return jobCondition(job, batchv1.JobComplete) != nil || jobCondition(job, batchv1.JobFailed) != nil
}

// jobCondition returns job's condition of type t when it is true, else nil.
func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i, cond := range job.Status.Conditions {
		if cond.Type == t && cond.Status == corev1.ConditionTrue {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}

// unavailable is an EUNAVAILABLE error with msg and the cluster's err.
func unavailable(err error, msg string, args ...any) error {
	return &styrmin.Error{Code: styrmin.EUNAVAILABLE, Message: fmt.Sprintf(msg, args...), Err: err}
}
