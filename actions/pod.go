package actions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Pod is the pod runtime: each run is one pod in the deployment's namespace,
// from the action-runner image, which fetches its bundle and prompts from
// the action API with the run's token and runs python3 -m styrmin.run.
type Pod struct {
	// Client is the cluster's API.
	Client kubernetes.Interface
	// Image is the action-runner image (--action-image).
	Image string
	// Resources are the container's requests and limits (default DefaultResources).
	Resources *corev1.ResourceRequirements
	// StartTimeout bounds the wait for the container to start (default
	// DefaultStartTimeout): a pod whose image is missing or that cannot be
	// scheduled fails its run then, saying why.
	StartTimeout time.Duration

	// logSource, when set, opens the container's log instead of the
	// cluster (a test's streams that break).
	logSource func(ctx context.Context, pod *corev1.Pod, opts *corev1.PodLogOptions) (io.ReadCloser, error)
}

var _ Runtime = (*Pod)(nil)

// DefaultStartTimeout is how long a run's pod may take to start its container.
const DefaultStartTimeout = 2 * time.Minute

// podPoll is how often the pod runtime looks at its pod while it waits.
const podPoll = 250 * time.Millisecond

// podEndWait bounds the wait for the container's exit status once its log has ended.
const podEndWait = 30 * time.Second

// badWaits are the reasons a container waits for that no waiting repairs.
var badWaits = map[string]bool{"ErrImageNeverPull": true, "InvalidImageName": true, "CreateContainerConfigError": true,
	"CreateContainerError": true, "ErrImagePull": true, "ImagePullBackOff": true, "RunContainerError": true}

// Run runs spec as a pod: it creates the deployment's action service account
// when missing, then the Secret of the run's token and the pod; waits for
// its container to start (StartTimeout at most); follows its log into sink;
// and reads the exit status from the container's state. At the action's
// timeout, or when ctx ends, the pod is deleted with its grace period
// (killGrace), again and again while the cluster fails the deletion, until
// it is gone or its own deadline has stopped it; the run reads as timed out
// or cancelled. The pod and the Secret are deleted at the end, however the
// run ended. An error means the run could not start (its pod did not), and
// says why.
func (p *Pod) Run(ctx context.Context, spec Spec, sink func(Line)) (Outcome, error) {
	if err := p.ensureServiceAccount(ctx, spec); err != nil {
		return Outcome{}, err
	}
	p.removeEnded(ctx, spec)
	resources := DefaultResources
	if p.Resources != nil {
		resources = *p.Resources
	}
	secret, err := p.Client.CoreV1().Secrets(spec.Env.Namespace).Create(ctx, tokenSecret(spec), metav1.CreateOptions{})
	if err != nil {
		return Outcome{}, fmt.Errorf("actions: create the Secret of the action's token: %w", err)
	}
	defer p.deleteSecret(secret)
	pod, err := p.Client.CoreV1().Pods(spec.Env.Namespace).Create(ctx, podOf(spec, p.Image, resources), metav1.CreateOptions{})
	if err != nil {
		return Outcome{}, fmt.Errorf("actions: create the action's pod: %w", err)
	}
	defer p.remove(pod)

	timeout := spec.Action.TimeoutDuration()
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer p.stopWhenDone(runCtx, pod, time.Now().Add(p.startTimeout()+timeout+killGrace))()

	var out Outcome
	if err := p.waitStarted(runCtx, pod); err != nil {
		if runCtx.Err() == nil {
			return Outcome{}, err
		}
	} else {
		lines := newLineSink(sink, &out)
		// The log is read past runCtx's end: the runner's last lines after
		// SIGTERM come within the grace period.
		logCtx, stopLog := context.WithTimeout(context.WithoutCancel(ctx), timeout+killGrace+podEndWait)
		p.followLog(logCtx, pod, lines)
		stopLog()
		lines.finish()
	}
	out.ExitCode = p.exitCode(context.WithoutCancel(ctx), pod)
	switch {
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		out.TimedOut = true
	case ctx.Err() != nil:
		out.Canceled = true
	}
	return out, nil
}

// ensureServiceAccount creates the service account of spec's deployment's
// action pods when it does not exist. One of that name that Styrmin did not
// create (a driver's chart made it, perhaps with rights) is refused.
func (p *Pod) ensureServiceAccount(ctx context.Context, spec Spec) error {
	sa := serviceAccount(spec)
	accounts := p.Client.CoreV1().ServiceAccounts(sa.Namespace)
	_, err := accounts.Create(ctx, sa, metav1.CreateOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("actions: create the service account %s of the action's pod: %w", sa.Name, err)
	}
	existing, err := accounts.Get(ctx, sa.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("actions: read the service account %s of the action's pod: %w", sa.Name, err)
	}
	if !ownServiceAccount(existing, sa) {
		return fmt.Errorf("actions: the service account %s in namespace %s was not created by Styrmin for this deployment, so no action runs as it; delete or rename it", sa.Name, sa.Namespace)
	}
	return nil
}

// ownServiceAccount reports whether existing carries every label of want,
// the service account Styrmin creates for the deployment's action pods.
func ownServiceAccount(existing, want *corev1.ServiceAccount) bool {
	for k, v := range want.Labels {
		if existing.Labels[k] != v {
			return false
		}
	}
	return true
}

// DeleteServiceAccount deletes the service account of release's action pods
// in namespace, when Styrmin created it for the deployment that labels (the
// release's owner labels) name, so that a deployment made again under the
// same name (another id) gets its own. One that Styrmin did not create for
// that deployment is left alone, and one already gone is no error.
func DeleteServiceAccount(ctx context.Context, client kubernetes.Interface, namespace, release string, labels map[string]string) error {
	want := serviceAccount(Spec{Env: Env{Namespace: namespace, Release: release}, Labels: labels})
	accounts := client.CoreV1().ServiceAccounts(namespace)
	existing, err := accounts.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("actions: read the service account %s of the action pods: %w", want.Name, err)
	case !ownServiceAccount(existing, want):
		return nil
	}
	err = accounts.Delete(ctx, want.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &existing.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("actions: delete the service account %s of the action pods: %w", want.Name, err)
	}
	return nil
}

// removeEnded deletes the ended action pods of spec's deployment, and the
// token Secrets of runs whose pod is gone or ended. A run deletes its own
// when it ends, so an ended one was left by a worker that died mid-run (its
// activeDeadlineSeconds stopped it; recovery revoked its token); a running
// pod may be another run's and is left alone, and so is its Secret, or a
// Secret younger than secretGrace (a run between its Secret and its pod).
// Failing to sweep is no reason not to run: the next run tries again.
func (p *Pod) removeEnded(ctx context.Context, spec Spec) {
	selector := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(podLabels(spec, false)).String() + "," + RunLabel}
	pods, err := p.Client.CoreV1().Pods(spec.Env.Namespace).List(ctx, selector)
	if err != nil {
		return
	}
	running := map[string]bool{}
	for i := range pods.Items {
		if podEnded(&pods.Items[i]) {
			p.delete(&pods.Items[i], 0)
		} else {
			running[pods.Items[i].Name] = true
		}
	}
	secrets, err := p.Client.CoreV1().Secrets(spec.Env.Namespace).List(ctx, selector)
	if err != nil {
		return
	}
	for i := range secrets.Items {
		if s := &secrets.Items[i]; !running[s.Name] && time.Since(s.CreationTimestamp.Time) > secretGrace {
			p.deleteSecret(s)
		}
	}
}

// secretGrace is how old a token Secret without a running pod must be for
// removeEnded to delete it: a run creates its pod right after its Secret.
const secretGrace = time.Minute

// stopWhenDone deletes pod, with killGrace, once runCtx ends (the action's
// timeout, or the run's cancellation), until it is gone or until by (when
// the pod's activeDeadlineSeconds has stopped it). The function it returns,
// called when the run ends, stops waiting for runCtx and waits for the
// deletion, if one began.
func (p *Pod) stopWhenDone(runCtx context.Context, pod *corev1.Pod, by time.Time) (stopWaiting func()) {
	runEnded := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-runCtx.Done():
			p.deleteUntilGone(pod, int64(killGrace.Seconds()), by)
		case <-runEnded:
		}
	}()
	return func() {
		close(runEnded)
		<-done
	}
}

// startTimeout is StartTimeout, or DefaultStartTimeout when it is zero.
func (p *Pod) startTimeout() time.Duration {
	if p.StartTimeout == 0 {
		return DefaultStartTimeout
	}
	return p.StartTimeout
}

// waitStarted waits until pod's container has started (or already ended),
// for StartTimeout at most; a container that cannot start, a pod that
// failed before, or the wait's end is an error that says why.
func (p *Pod) waitStarted(ctx context.Context, pod *corev1.Pod) error {
	limit := p.startTimeout()
	deadline := time.Now().Add(limit)
	why := "it was not scheduled"
	for {
		cur, err := p.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			why = "the cluster did not answer: " + err.Error()
		default:
			started, reason, final := startState(cur)
			if started {
				return nil
			}
			why = reason
			if final {
				return p.notStarted(ctx, pod, why)
			}
		}
		if time.Now().After(deadline) {
			return p.notStarted(ctx, pod, fmt.Sprintf("%s (waited %s)", why, limit))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(podPoll):
		}
	}
}

// startState says whether pod's container has started, else why not and
// whether waiting cannot help.
func startState(pod *corev1.Pod) (started bool, why string, final bool) {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running != nil || cs.State.Terminated != nil {
			return true, "", false
		}
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return false, strings.TrimSpace(w.Reason + ": " + w.Message), badWaits[w.Reason]
		}
	}
	if podEnded(pod) {
		return false, fmt.Sprintf("the pod ended (%s) before its container started: %s", pod.Status.Phase, pod.Status.Message), true
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return false, fmt.Sprintf("it cannot be scheduled: %s", c.Message), false
		}
	}
	return false, "its container has not started", false
}

// notStarted is the error of a pod that did not start, with the last warning
// event of the pod when there is one.
func (p *Pod) notStarted(ctx context.Context, pod *corev1.Pod, why string) error {
	msg := fmt.Sprintf("actions: the action's pod %s in namespace %s did not start: %s", pod.Name, pod.Namespace, why)
	events, err := p.Client.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.name": pod.Name, "type": corev1.EventTypeWarning}.String()})
	if err == nil && len(events.Items) > 0 {
		last := events.Items[len(events.Items)-1]
		msg += fmt.Sprintf(" (last event: %s: %s)", last.Reason, last.Message)
	}
	return errors.New(msg)
}

// logReopenWaitMax bounds the wait before a broken log stream is opened
// again, which starts at podPoll and doubles while the streams bring nothing.
const logReopenWaitMax = 4 * time.Second

// followLog reads the container's log, followed, into lines until the
// container ends or ctx ends. Standard output and standard error arrive as
// one stream, read as the runner's protocol.
//
// A stream that breaks off while the container runs (the API server or the
// kubelet restarted) is opened again from where it broke (after podPoll,
// then longer while the streams bring nothing), until the container ends or
// ctx does: the kubelet stamps each line with its time, and the start of
// the new stream, up to its first line stamped after the last one read, is
// skipped. Once the container has ended, the log is read once more from its
// last line read, so that what it wrote between a break and its end is not
// lost. Within one stream every line is read: the stamps of standard output
// and standard error need not be in order. (Lines of the same nanosecond,
// or out of order, split by a break may be lost or read twice.)
func (p *Pod) followLog(ctx context.Context, pod *corev1.Pod, lines *lineSink) {
	stamped := &stampedLines{lines: lines}
	var failure error
	wait := podPoll
	for finalRead := false; ; {
		opts := &corev1.PodLogOptions{Container: ContainerName, Follow: true, Timestamps: true}
		if !stamped.last.IsZero() {
			opts.SinceTime = &metav1.Time{Time: stamped.last} // whole seconds on the wire; the lines up to last are skipped
			stamped.reopened()
		}
		before := stamped.last
		stream, err := p.openLog(ctx, pod, opts)
		failure = err
		if err == nil {
			readLines(stream, maxStampBytes+MaxLineBytes, stamped.read)
			stream.Close()
		}
		if ctx.Err() != nil || finalRead {
			break
		}
		if p.containerEnded(ctx, pod) {
			finalRead = true
			continue
		}
		if stamped.last.After(before) {
			wait = podPoll
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, logReopenWaitMax)
	}
	if failure != nil && stamped.last.IsZero() {
		lines.warning("the action's log could not be read: " + failure.Error())
	}
}

// stampedLines reads the lines of a container's log, stamped by the kubelet,
// into lines: every line of the first stream, and of a stream opened again
// (reopened) the lines after its first one stamped later than the last one
// read before.
type stampedLines struct {
	lines *lineSink
	// last is the latest stamp read; resume, in a stream opened again until
	// a line stamped after it comes, the stamp of the lines read already.
	last, resume time.Time
}

// reopened notes that a stream opened again from last follows.
func (s *stampedLines) reopened() { s.resume = s.last }

// read reads one line of the log.
func (s *stampedLines) read(text string) {
	at, rest, ok := cutTimestamp(text)
	if !ok {
		s.lines.protocol(text)
		return
	}
	if !s.resume.IsZero() {
		if !at.After(s.resume) {
			return
		}
		s.resume = time.Time{}
	}
	if at.After(s.last) {
		s.last = at
	}
	s.lines.protocol(rest)
}

// openLog opens the log of pod's container with opts (the cluster's, or
// logSource's when set).
func (p *Pod) openLog(ctx context.Context, pod *corev1.Pod, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	if p.logSource != nil {
		return p.logSource(ctx, pod, opts)
	}
	return p.Client.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, opts).Stream(ctx)
}

// maxStampBytes is the longest timestamp the kubelet puts before a log line,
// its space included: time.RFC3339Nano's layout is as long as its longest
// rendering (nine digits of fraction, an offset such as +01:00). A line of
// the runner, MaxLineBytes at most, is read whole after it.
const maxStampBytes = len(time.RFC3339Nano) + len(" ")

// cutTimestamp splits a log line the kubelet stamped (PodLogOptions'
// Timestamps) into its time and text.
func cutTimestamp(line string) (time.Time, string, bool) {
	stamp, text, found := strings.Cut(line, " ")
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if !found && err == nil {
		return at, "", true // an empty line
	}
	return at, text, found && err == nil
}

// containerEnded reports whether pod's container has ended, or the pod is
// gone: its log holds nothing more. Not knowing (the cluster does not
// answer) is not ended.
func (p *Pod) containerEnded(ctx context.Context, pod *corev1.Pod) bool {
	cur, err := p.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true
	}
	if err != nil {
		return false
	}
	return podEnded(cur) || terminated(cur) != nil
}

// podEnded reports whether pod's phase is a final one.
func podEnded(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// terminated is the end state of pod's container; nil while it has not ended.
func terminated(pod *corev1.Pod) *corev1.ContainerStateTerminated {
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			return t
		}
	}
	return nil
}

// exitCode waits (podEndWait at most) for the container's exit status; -1
// when it was killed (a signal's 128+n, as a sandboxed process's) or its pod
// is gone.
func (p *Pod) exitCode(ctx context.Context, pod *corev1.Pod) int {
	ctx, cancel := context.WithTimeout(ctx, podEndWait)
	defer cancel()
	for {
		cur, err := p.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return -1
		}
		if err == nil {
			if t := terminated(cur); t != nil {
				if t.ExitCode > 128 && t.ExitCode <= 128+64 {
					return -1
				}
				return int(t.ExitCode)
			}
		}
		select {
		case <-ctx.Done():
			return -1
		case <-time.After(podPoll):
		}
	}
}

// delete deletes pod (guarded by its uid) with grace seconds for its
// container to stop; a pod already gone is no error. It never reports
// failure: the pod's activeDeadlineSeconds stops it anyway.
func (p *Pod) delete(pod *corev1.Pod, grace int64) {
	ctx, cancel := context.WithTimeout(context.Background(), podEndWait)
	defer cancel()
	_ = p.deleteRequest(ctx, pod, grace) //nolint:errcheck // see above
}

// deleteRequest asks the cluster once to delete pod (guarded by its uid)
// with grace seconds for its container to stop.
func (p *Pod) deleteRequest(ctx context.Context, pod *corev1.Pod, grace int64) error {
	return p.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To(grace), Preconditions: &metav1.Preconditions{UID: &pod.UID},
	})
}

// deleteSecret deletes secret (guarded by its uid); like delete, it never
// reports failure: removeEnded tries again at the deployment's next run.
func (p *Pod) deleteSecret(secret *corev1.Secret) {
	ctx, cancel := context.WithTimeout(context.Background(), podEndWait)
	defer cancel()
	_ = p.Client.CoreV1().Secrets(secret.Namespace).Delete(ctx, secret.Name, metav1.DeleteOptions{ //nolint:errcheck // see above
		Preconditions: &metav1.Preconditions{UID: &secret.UID},
	})
}

// remove deletes pod at once and waits (podEndWait at most) until it is gone.
func (p *Pod) remove(pod *corev1.Pod) {
	p.deleteUntilGone(pod, 0, time.Now().Add(podEndWait))
}

// deleteUntilGone deletes pod with grace seconds, asking again (every
// podPoll) while the cluster fails the deletion, and waits until the pod is
// gone, or until by; it reports whether the pod is gone. A pod of the same
// name with another uid is another run's: this one is gone.
func (p *Pod) deleteUntilGone(pod *corev1.Pod, grace int64, by time.Time) (gone bool) {
	ctx, cancel := context.WithDeadline(context.Background(), by)
	defer cancel()
	deleted := false
	for {
		if !deleted {
			err := p.deleteRequest(ctx, pod, grace)
			deleted = err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err)
		}
		cur, err := p.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && cur.UID != pod.UID) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(podPoll):
		}
	}
}

// DeleteRun deletes the pod and the token Secret of the action run on hook
// step stepID of release in namespace, and waits (podEndWait at most) until
// the pod is gone. A worker that died mid-run left them: its pod would run
// on until its deadline, beside the task run again. Objects of that name
// without the run's labels are not the pod runtime's and are left alone;
// none at all is no error.
func DeleteRun(ctx context.Context, client kubernetes.Interface, namespace, release string, stepID int64) error {
	name := PodName(release, stepID)
	run := &Pod{Client: client}
	pod, err := client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("actions: read the pod %s of an action run: %w", name, err)
	case ranStep(pod.Labels, stepID) && !run.deleteUntilGone(pod, 0, time.Now().Add(podEndWait)):
		return fmt.Errorf("actions: the pod %s of an action run in namespace %s is not gone %s after its deletion", name, namespace, podEndWait)
	}
	secret, err := client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("actions: read the token Secret %s of an action run: %w", name, err)
	case ranStep(secret.Labels, stepID):
		run.deleteSecret(secret)
	}
	return nil
}

// ranStep reports whether labels are those of the pod runtime's objects of
// the run on hook step stepID.
func ranStep(labels map[string]string, stepID int64) bool {
	return labels[ManagedByLabel] == ManagedBy && labels[RunLabel] == strconv.FormatInt(stepID, 10)
}
