// Package drivertrial runs a driver folder through its life on a real
// cluster, as `styrmin driver test --cluster` does: an in-process Styrmin
// (app.New on a private PostgreSQL, pglocal) imports the folder and deploys
// it into a throw-away namespace, then runs its install, every manual action
// with default prompts, an upgrade to the same version, stop, start and
// delete, one task at a time, reporting each as the deployment page shows
// it. It stops at the first step that does not succeed, and removes
// everything it made at the end.
package drivertrial

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/authoring"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
)

// by is who the trial's changes are recorded as.
const by = "driver-test"

// namespacePrefix starts the name of a namespace the trial makes up.
const namespacePrefix = "styrmin-test"

// DefaultTimeout bounds a trial's steps when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Minute

// cleanUpTime bounds the clean-up: the deployment's delete and the
// namespace's removal.
const cleanUpTime = 5 * time.Minute

// Options say which driver folder to try and where.
type Options struct {
	// Path is the driver folder.
	Path string
	// Kubeconfig and KubeContext name the cluster (kube.Connect: empty, KUBECONFIG's).
	Kubeconfig, KubeContext string
	// Namespace is the throw-away namespace, which must not exist; empty,
	// styrmin-test-<digits>.
	Namespace string
	// Keep leaves the deployment and its namespace as they are when a step
	// fails (a trial that passes has deleted both in its last step).
	Keep bool
	// Sets (NAME=VALUE) and ValuesFile (YAML) give parameter values over
	// the driver's defaults, as `driver render` reads them.
	Sets       []string
	ValuesFile string
	// Timeout bounds the steps, not the clean-up (zero: DefaultTimeout): a
	// task still running then is cancelled, and its step fails.
	Timeout time.Duration
	// TempDir is where the private Styrmin's folder goes (default os.TempDir()).
	TempDir string
	// Out receives the report.
	Out io.Writer
	// Logger receives the in-process Styrmin's log; nil, none.
	Logger *slog.Logger
}

// StepError is the first step of a trial that did not succeed, and why.
type StepError struct {
	// Step names it ("install", "action restart", ...).
	Step string
	// Reason is the failed task's reason (the failed action's error line,
	// else the task's message), or why the step could not be queued.
	Reason string
}

// Error says which step failed and why.
func (e *StepError) Error() string {
	return fmt.Sprintf("the trial stopped at %s: %s", e.Step, e.Reason)
}

// Run tries the driver folder of opts on the cluster and writes the report
// to opts.Out. It returns a *StepError at the first step that fails, or an
// EINVALID error for values the driver refuses before anything is started.
func Run(ctx context.Context, opts Options) (err error) {
	b, err := drivers.LoadPath(ctx, opts.Path)
	if err != nil {
		return fmt.Errorf("drivertrial: %s: %w", opts.Path, err)
	}
	params, err := installValues(b.Driver, opts)
	if err != nil {
		return err
	}
	if _, err := actions.FindPython(ctx); err != nil {
		return fmt.Errorf("drivertrial: the driver's actions run as local processes: %w", err)
	}
	namespace := opts.Namespace
	if namespace == "" {
		namespace = fmt.Sprintf("%s-%010d", namespacePrefix, rand.Int64N(1e10))
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s, err := startStyrmin(ctx, opts.TempDir, opts.Kubeconfig, opts.KubeContext, logger)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.close()) }()
	if err := checkNew(ctx, s, namespace); err != nil {
		return err
	}
	imported, err := s.app.Catalog.Import(ctx, b, by)
	if err != nil {
		return fmt.Errorf("drivertrial: import %s: %w", opts.Path, err)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	t := &trial{s: s, out: opts.Out, name: imported.Name, namespace: namespace, timeout: timeout}
	fmt.Fprintf(t.out, "Trying %s %s in namespace %s (a private Styrmin; actions run as local processes)\n", imported.Name, imported.Version, namespace)
	defer func() { err = errors.Join(err, t.cleanUp(context.WithoutCancel(ctx), opts.Keep && err != nil)) }()
	stepsCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return t.run(stepsCtx, &deployment.Install{
		Driver: imported.Name, DriverVersion: imported.Version, Name: imported.Name, Namespace: namespace,
		Parameters: deployment.JSONInput(params), Prompts: deployment.JSONPrompts{}, By: by,
	}, manualActions(b.Driver))
}

// installValues are the driver's defaults with the values of opts over
// them; a required parameter left without a value is an EINVALID error
// naming the --set to give.
func installValues(d *drivers.Driver, opts Options) (map[string]any, error) {
	given, err := authoring.Given(d, opts.Sets, opts.ValuesFile)
	if err != nil {
		return nil, err
	}
	params := d.DefaultValues()
	maps.Copy(params, given)
	var missing []string
	for _, p := range d.Spec.Parameters {
		if _, ok := params[p.Name]; p.Required && !ok {
			missing = append(missing, "--set "+p.Name+"=VALUE")
		}
	}
	if len(missing) > 0 {
		return nil, styrmin.Errorf(styrmin.EINVALID, "The driver has required parameters without a default: give %s (or put them in --values FILE).", strings.Join(missing, " "))
	}
	return params, nil
}

// manualActions are the names of d's manual actions, in the driver file's order.
func manualActions(d *drivers.Driver) []string {
	var names []string
	for _, a := range d.Spec.Actions {
		if a.Hook == drivers.HookManual {
			names = append(names, a.Name)
		}
	}
	return names
}

// checkNew refuses a namespace that exists: the trial deletes its namespace
// at the end, so it must be one the trial made.
func checkNew(ctx context.Context, s *local, namespace string) error {
	_, err := s.app.Cluster.Kube.Clientset.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	switch {
	case err == nil:
		return styrmin.Errorf(styrmin.EINVALID, "Namespace %s exists; a trial deploys into a new namespace and deletes it at the end: give another --namespace, or none.", namespace)
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("drivertrial: read namespace %s: %w", namespace, err)
	}
	return nil
}

// trial is one run of a driver's steps on the trial's Styrmin.
type trial struct {
	s         *local
	out       io.Writer
	name      string
	namespace string
	timeout   time.Duration
	// installed is set once the install is queued; deleted once the delete succeeded.
	installed, deleted bool
}

// run installs, runs each manual action, upgrades to the same version,
// stops, starts and deletes, stopping at the first step that fails.
func (t *trial) run(ctx context.Context, install *deployment.Install, manual []string) error {
	if err := t.step(ctx, "install", install); err != nil {
		return err
	}
	for _, a := range manual {
		if err := t.step(ctx, "action "+a, &deployment.RunAction{Name: t.name, Action: a, Prompts: deployment.JSONInput{}, By: by}); err != nil {
			return err
		}
	}
	steps := []struct {
		name string
		op   deployment.Operation
	}{
		{"upgrade", &deployment.Upgrade{Name: t.name, Prompts: deployment.JSONPrompts{}, By: by}},
		{"stop", &deployment.Stop{Name: t.name, By: by}},
		{"start", &deployment.Start{Name: t.name, By: by}},
		{"delete", t.delete()},
	}
	for _, st := range steps {
		if err := t.step(ctx, st.name, st.op); err != nil {
			return err
		}
	}
	t.deleted = true
	return nil
}

// delete is the operation that deletes the trial's deployment.
func (t *trial) delete() *deployment.Delete {
	return &deployment.Delete{Name: t.name, Confirm: t.name, Prompts: deployment.JSONPrompts{}, By: by}
}

// step queues op, waits for its task to end and reports it; a refusal or a
// task that did not succeed is a *StepError.
func (t *trial) step(ctx context.Context, name string, op deployment.Operation) error {
	queued, err := t.s.app.Deployments.Queue(ctx, op)
	if err != nil {
		reason := refusal(err)
		fmt.Fprintf(t.out, "%s: refused: %s\n", name, reason)
		return &StepError{Step: name, Reason: reason}
	}
	t.installed = true
	task, err := t.wait(ctx, queued.TaskID)
	if ctx.Err() != nil {
		return t.cancel(name, queued.TaskID, ctx.Err())
	}
	if err != nil {
		return err
	}
	report(t.out, name, task)
	if reason := failure(task); reason != "" {
		return &StepError{Step: name, Reason: reason}
	}
	return nil
}

// pollEvery is how often the trial reads a task it waits for.
const pollEvery = 500 * time.Millisecond

// wait reads task id until it has ended.
func (t *trial) wait(ctx context.Context, id int64) (*deployment.Task, error) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		task, err := t.s.app.Deployments.Task(ctx, t.name, id)
		if err != nil {
			return nil, err
		}
		if task.Ended() {
			return task, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("drivertrial: wait for task %d: %w", id, ctx.Err())
		case <-tick.C:
		}
	}
}

// cancel cancels task id of step name, which did not end before the
// trial's timeout or interruption (why, the context's error), waits for it
// to end and reports it.
func (t *trial) cancel(name string, id int64, why error) error {
	ctx, stop := context.WithTimeout(context.Background(), cleanUpTime)
	defer stop()
	reason := fmt.Sprintf("it did not end within the trial's %s (--timeout), and was cancelled", t.timeout)
	if !errors.Is(why, context.DeadlineExceeded) {
		reason = "the trial was interrupted, and it was cancelled"
	}
	if err := t.s.app.Deployments.CancelTask(ctx, t.name, id, by); err != nil && styrmin.ErrorCode(err) != styrmin.ECONFLICT {
		return errors.Join(&StepError{Step: name, Reason: reason}, err)
	}
	task, err := t.wait(ctx, id)
	if err != nil {
		return errors.Join(&StepError{Step: name, Reason: reason}, err)
	}
	report(t.out, name, task)
	return &StepError{Step: name, Reason: reason}
}

// cleanUp deletes the deployment when a step failed before its delete, then
// the namespace when it is still there; keep leaves both.
func (t *trial) cleanUp(ctx context.Context, keep bool) error {
	if keep {
		fmt.Fprintf(t.out, "Kept namespace %s as the failure left it (--keep); nothing else manages it now: remove it with kubectl delete namespace %s\n", t.namespace, t.namespace)
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, cleanUpTime)
	defer cancel()
	var errs []error
	if t.installed && !t.deleted {
		// Its errors are reported; the namespace's deletion removes what it left.
		var step *StepError
		if err := t.step(ctx, "clean-up: delete", t.delete()); err != nil && !errors.As(err, &step) {
			errs = append(errs, err)
		}
	}
	kube := t.s.app.Cluster.Kube
	if err := kube.DeleteNamespace(ctx, t.namespace); err != nil {
		return errors.Join(append(errs, err)...)
	}
	if err := kube.WaitNamespaceDeleted(ctx, t.namespace); err != nil {
		return errors.Join(append(errs, err)...)
	}
	fmt.Fprintf(t.out, "Namespace %s is gone.\n", t.namespace)
	return errors.Join(errs...)
}

// refusal says why an operation was not queued: each field's message for
// an *deployment.InvalidError, else the error.
func refusal(err error) string {
	var invalid *deployment.InvalidError
	if !errors.As(err, &invalid) {
		return err.Error()
	}
	fields := invalid.FormFields()
	msgs := make([]string, 0, len(fields))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		msgs = append(msgs, k+": "+fields[k])
	}
	return strings.Join(msgs, "; ")
}
