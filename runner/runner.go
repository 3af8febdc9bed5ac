// Package runner is the worker side of deployments: the executor's runner
// of each task kind (install, upgrade, rollback, stop, start, delete, a
// manual action, reconcile), the driver actions each runs as hook steps, and the
// recovery of a task whose process died. The deployment service validates,
// plans and queues the tasks; this package does their work on the cluster.
package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/deployment"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/secrets"
)

// Timeouts of a task's cluster operations.
const (
	// HelmTimeout bounds one Helm operation (and its hooks).
	HelmTimeout = 10 * time.Minute
	// ReadyTimeout bounds the wait for one component to become ready.
	ReadyTimeout = 10 * time.Minute
)

// Runners does the tasks the deployment service queues: it is the
// executor's runner of each task kind.
type Runners struct {
	deployments *deployment.Service
	q           *db.Queries
	catalog     deployment.Catalog
	box         *secrets.Box
	// actions runs driver actions; nil when there is no action runtime.
	actions  *ActionsConfig
	log      *slog.Logger
	observer ActionObserver
}

// ActionObserver hears of the driver actions run (metrics.Metrics).
type ActionObserver interface {
	// ActionRan is called when a driver action's run ends.
	ActionRan(succeeded bool)
}

// noActionObserver hears nothing.
type noActionObserver struct{}

func (noActionObserver) ActionRan(bool) {}

// Config is what the runners are built on.
type Config struct {
	// Deployments is the service whose tasks they do: its cluster, its
	// release owners, its deployers and its checks are theirs.
	Deployments *deployment.Service
	Pool        *pgxpool.Pool
	Catalog     deployment.Catalog
	// Box opens the deployments' and tasks' secrets and seals the revisions'.
	Box *secrets.Box
	// Actions is how the runners run driver actions; nil when they cannot
	// run here (python3 is missing): a hook step then fails saying so.
	Actions *ActionsConfig
	// Logger receives the runners' log lines (default slog.Default()).
	Logger *slog.Logger
	// Observer hears of the actions run; nil hears nothing.
	Observer ActionObserver
}

// New returns the runners of cfg.
func New(cfg Config) *Runners {
	return &Runners{deployments: cfg.Deployments, q: db.New(cfg.Pool), catalog: cfg.Catalog, box: cfg.Box, actions: cfg.Actions,
		log: cmp.Or(cfg.Logger, slog.Default()), observer: cmp.Or[ActionObserver](cfg.Observer, noActionObserver{})}
}

// ByKind returns the executor's runner of each task kind.
func (s *Runners) ByKind() map[string]executor.Runner {
	runners := map[string]executor.Runner{
		deployment.KindInstall:   installRunner{s},
		deployment.KindUpgrade:   upgradeRunner{s},
		deployment.KindRollback:  rollbackRunner{s},
		deployment.KindStop:      componentsRunner{s: s, stop: true},
		deployment.KindStart:     componentsRunner{s: s},
		deployment.KindDelete:    deleteRunner{s},
		deployment.KindAction:    actionRunner{s},
		deployment.KindReconcile: reconcileRunner{s},
	}
	for kind, r := range runners {
		runners[kind] = orphanStoppingRunner{Runner: r, s: s}
	}
	return runners
}

// orphanStoppingRunner stops, before a task is recovered, what its hook steps
// left behind when the process running them died, which never ran the
// steps' own endings: it revokes every action token they minted, and
// deletes their action pods and the action Job, which would otherwise run
// on beside the task run again. The tasks its actions started stay in its
// result, as in a failed run's.
type orphanStoppingRunner struct {
	executor.Runner
	s *Runners
}

func (r orphanStoppingRunner) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	if err := r.s.q.RevokeTaskActionTokens(ctx, run.Task.ID); err != nil {
		return false, "", fmt.Errorf("runner: revoke the action tokens of task %d: %w", run.Task.ID, err)
	}
	if err := r.s.stopOrphanActions(ctx, run.Task); err != nil {
		return false, "", err
	}
	linked, err := (&taskRun{s: r.s, run: run}).linked(ctx)
	if err != nil {
		return false, "", err
	}
	if len(linked) > 0 {
		run.KeepResult(deployment.FailedResult{Linked: linked})
	}
	return r.Runner.Recover(ctx, run)
}

// stopOrphanActions deletes, and waits until they are gone, the action pods
// of task's hook steps (the pod runtime's) and its deployment's action Job,
// ended or not, which one of its actions may have started. A task that ran
// no action leaves the Job alone; without a cluster there is nothing to stop.
func (s *Runners) stopOrphanActions(ctx context.Context, task db.Task) error {
	steps, err := s.q.ListSteps(ctx, task.ID)
	if err != nil {
		return fmt.Errorf("runner: steps of task %d: %w", task.ID, err)
	}
	steps = slices.DeleteFunc(steps, func(st db.Step) bool { return st.Kind != deployment.StepHook })
	cluster := s.deployments.Cluster()
	if len(steps) == 0 || cluster == nil {
		return nil
	}
	row, err := s.q.GetDeploymentByID(ctx, task.DeploymentID)
	if err != nil {
		return fmt.Errorf("runner: task %d: %w", task.ID, err)
	}
	for _, st := range steps {
		if err := actions.DeleteRun(ctx, cluster.Kube.Clientset, row.Namespace, row.Name, st.ID); err != nil {
			return err
		}
	}
	return cluster.Kube.DeleteActionJob(ctx, row.Namespace, row.Name)
}

// taskRun is what every runner starts from: the task's deployment, its inputs,
// the cluster and the owner of the deployment's release.
type taskRun struct {
	s       *Runners
	run     *executor.Run
	row     db.Deployment
	cluster *deployment.Cluster
	owner   release.Owner
}

// newTaskRun reads the task's deployment and decodes its inputs into inputs.
func (s *Runners) newTaskRun(ctx context.Context, run *executor.Run, inputs any) (*taskRun, error) {
	cluster, err := s.deployments.NeedCluster()
	if err != nil {
		return nil, err
	}
	row, err := s.q.GetDeploymentByID(ctx, run.Task.DeploymentID)
	if err != nil {
		return nil, fmt.Errorf("runner: task %d: %w", run.Task.ID, err)
	}
	if err := json.Unmarshal(run.Task.Inputs, inputs); err != nil {
		return nil, fmt.Errorf("runner: task %d inputs: %w", run.Task.ID, err)
	}
	owner, err := s.deployments.ReleaseOwner(ctx, row.ID)
	if err != nil {
		return nil, err
	}
	return &taskRun{s: s, run: run, row: row, cluster: cluster, owner: owner}, nil
}

// checkOwnRelease refuses (release.IsForeign) a release of the deployment's
// name that is not the deployment's own, before a task runs any hook or
// changes anything. No release at all is not refused; nor is a cluster that
// does not answer: the task's Helm step, which checks again, fails then.
func (j *taskRun) checkOwnRelease(ctx context.Context) error {
	err := j.cluster.Releases.CheckOwner(ctx, j.row.Namespace, j.row.Name, j.owner)
	if isNotFound(err) || styrmin.ErrorCode(err) == styrmin.EUNAVAILABLE {
		return nil
	}
	return err
}

// render takes the chart of bundle b (stored with it) and renders the values
// the deployment gives it, as one step.
func (j *taskRun) render(ctx context.Context, b *drivers.Bundle, appVersion string, values deployment.Values) (*release.InstallOptions, error) {
	opts := &release.InstallOptions{Namespace: j.row.Namespace, Name: j.row.Name, Owner: j.owner, Timeout: HelmTimeout,
		Description: fmt.Sprintf("%s by Styrmin (task %d)", j.run.Task.Kind, j.run.Task.ID)}
	err := j.run.Step(ctx, deployment.StepRender, "Render the values of driver "+b.Driver.Spec.Version, func(ctx context.Context, st *executor.Step) error {
		var err error
		opts.Chart = b.Chart
		if opts.Values, err = release.Values(ctx, b.Driver, values.All(), appVersion, j.row.Namespace, j.row.Name); err != nil {
			return err
		}
		if opts.Check, err = j.s.deployments.PermissionCheck(ctx, b.Driver.Metadata.Name, b.Driver.Spec.Version, j.row.Namespace); err != nil {
			return err
		}
		st.Say("Chart %s %s, application version %s.", opts.Chart.Name(), opts.Chart.Metadata.Version, appVersion)
		return nil
	})
	return opts, err
}

// waitReady waits for each component to be ready, one step per component.
func (j *taskRun) waitReady(ctx context.Context, comps []drivers.Component) error {
	for _, c := range comps {
		err := j.run.Step(ctx, deployment.StepWait, "Wait for "+deployment.ComponentTitle(c)+" to be ready", func(ctx context.Context, st *executor.Step) error {
			statuses, err := j.cluster.Kube.WaitComponentsReady(ctx, j.row.Namespace, j.row.Name, []drivers.Component{c}, ReadyTimeout)
			if err != nil {
				return err
			}
			var ready, want int32
			for _, w := range statuses[0].Workloads {
				ready, want = ready+w.ReadyReplicas, want+w.Replicas
			}
			st.SetDetail(deployment.WaitDetail{Ready: ready, Replicas: want})
			st.Say("%d of %d replicas ready.", ready, want)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// waitStopped waits, as one step, until the pods of the stopped components
// are gone: an action that stops a component and then works on its data must
// find it stopped.
func (j *taskRun) waitStopped(ctx context.Context, comps []drivers.Component) error {
	names := make([]string, len(comps))
	for i, c := range comps {
		names[i] = deployment.ComponentTitle(c)
	}
	return j.run.Step(ctx, deployment.StepWait, "Wait for the pods of "+strings.Join(names, ", ")+" to end", func(ctx context.Context, st *executor.Step) error {
		if err := j.cluster.Kube.WaitComponentsStopped(ctx, j.row.Namespace, j.row.Name, comps, ReadyTimeout); err != nil {
			return err
		}
		st.Say("No pod left.")
		return nil
	})
}

// record saves what a successful release operation put in place: the
// revision's versions and values, and the deployment's.
func (j *taskRun) record(ctx context.Context, revision int, driverVersion, appVersion string, values deployment.Values) error {
	plain, err := deployment.MarshalPlain(values)
	if err != nil {
		return err
	}
	revisionSecrets, err := j.s.box.SealValues(values.Secrets, deployment.RevisionSecretsAt(j.row.ID, int32(revision)))
	if err != nil {
		return err
	}
	deploymentSecrets, err := j.s.box.SealValues(values.Secrets, deployment.DeploymentSecretsAt(j.row.ID))
	if err != nil {
		return err
	}
	// Helm has made the revision: it is recorded however long the database
	// takes to answer, unless the task was taken over meanwhile.
	err = j.run.Write(context.WithoutCancel(ctx), "record a revision", func(ctx context.Context, q *db.Queries) error {
		if err := q.InsertRevision(ctx, db.InsertRevisionParams{
			DeploymentID: j.row.ID, Revision: int32(revision), TaskID: j.run.Task.ID, DriverVersion: driverVersion,
			AppVersion: appVersion, Parameters: plain, Secrets: revisionSecrets,
		}); err != nil {
			return err
		}
		return q.SetDeploymentRelease(ctx, db.SetDeploymentReleaseParams{
			ID: j.row.ID, DriverVersion: driverVersion, AppVersion: appVersion, Parameters: plain,
			Secrets: deploymentSecrets, SecretNames: deployment.SecretNames(values.Secrets),
		})
	})
	if err != nil {
		return fmt.Errorf("runner: record revision %d of %s: %w", revision, j.row.Name, err)
	}
	// The deployer now holds only what the recorded version needs.
	return j.actAs(ctx, driverVersion)
}

// actAs makes the deployment's deployer ready for a Helm operation with the
// given versions of its driver (see Service.PrepareDeployer).
func (j *taskRun) actAs(ctx context.Context, versions ...string) error {
	return j.s.deployments.PrepareDeployer(ctx, j.cluster, j.row.Namespace, j.row.Name, j.row.DriverName, versions...)
}

// fail marks the deployment failed after a task failed, and returns err with
// the task's result: the tasks its actions started, as a task that ends
// includes them (nil when none).
func (j *taskRun) fail(ctx context.Context, err error) (any, error) {
	ctx = context.WithoutCancel(ctx)
	serr := j.run.Write(ctx, "record a failed deployment", func(ctx context.Context, q *db.Queries) error {
		return q.SetDeploymentStatus(ctx, db.SetDeploymentStatusParams{ID: j.row.ID, Status: deployment.StatusFailed})
	})
	if serr != nil {
		err = fmt.Errorf("%w (and recording the failure: %v)", err, serr)
	}
	linked, lerr := j.linked(ctx)
	if lerr != nil {
		return nil, fmt.Errorf("%w (and listing the tasks its actions started: %v)", err, lerr)
	}
	var refused *permissions.RefusedError
	errors.As(err, &refused)
	if len(linked) == 0 && refused == nil {
		return nil, err
	}
	return deployment.FailedResult{Linked: linked, Refused: refusedPermissionsOf(refused)}, err
}

// refusedPermissionsOf is refused as a task result keeps it; nil for nil.
func refusedPermissionsOf(refused *permissions.RefusedError) *deployment.RefusedPermissions {
	if refused == nil {
		return nil
	}
	return &deployment.RefusedPermissions{Driver: refused.Driver, Version: refused.Version, Items: refused.Missing}
}

// releaseResult is the result of a task that made a revision.
type releaseResult struct {
	Revision     int    `json:"revision"`
	ChartVersion string `json:"chart_version"`
	AppVersion   string `json:"app_version"`
	Notes        string `json:"notes,omitempty"`
	// Linked are the tasks its actions started through primitives.
	Linked []deployment.LinkedResult `json:"linked,omitempty"`
}

// finishHooks runs the post-operation hook of a task that made a revision,
// then completes its result with the tasks its actions started.
func (j *taskRun) finishHooks(ctx context.Context, b *drivers.Bundle, hook drivers.Hook, prompts map[string]map[string]any, result releaseResult) (any, error) {
	hookErr := j.runHooks(ctx, b, hook, prompts)
	linked, err := j.linked(ctx)
	if err != nil {
		return nil, err
	}
	result.Linked = linked
	return result, hookErr
}

// isNotFound reports whether err is an ENOTFOUND error.
func isNotFound(err error) bool { return styrmin.ErrorCode(err) == styrmin.ENOTFOUND }

// helmStepStarted reports whether the task reached its Helm step: after that
// a task is not simply run again after a crash.
func (s *Runners) helmStepStarted(ctx context.Context, taskID int64) (bool, error) {
	steps, err := s.q.ListSteps(ctx, taskID)
	if err != nil {
		return false, fmt.Errorf("runner: steps of task %d: %w", taskID, err)
	}
	return slices.ContainsFunc(steps, func(st db.Step) bool { return st.Kind == deployment.StepHelm }), nil
}

// recoverPending recovers, as a Helm step of its own, a release that an
// earlier operation left pending (pending-install, -upgrade or -rollback:
// the cluster vanished, or its process stopped, before Helm recorded the
// operation's end), exactly as crash recovery does (RecoverPending), so
// that Helm does not refuse the operation that follows as "in progress".
// The task holds the deployment, so no other task works on the release. A
// release that is not pending, or none at all, takes no step; nor does a
// cluster that does not answer: the operation's own Helm step fails then.
func (j *taskRun) recoverPending(ctx context.Context) error {
	last, err := j.cluster.Releases.Status(ctx, j.row.Namespace, j.row.Name)
	if isNotFound(err) || styrmin.ErrorCode(err) == styrmin.EUNAVAILABLE || (err == nil && !last.Status.Pending()) {
		return nil
	}
	if err != nil {
		return err
	}
	title := fmt.Sprintf("Recover release %s, left %s at revision %d", j.row.Name, last.Status, last.Number)
	return j.run.Step(ctx, deployment.StepHelm, title, func(ctx context.Context, st *executor.Step) error {
		rec, err := j.cluster.Releases.RecoverPending(ctx, j.row.Namespace, j.row.Name, j.owner)
		if err != nil {
			return err
		}
		st.Warn("An earlier operation did not finish. %s", rec.Message)
		return nil
	})
}

// recoverRelease is the Recover of install, upgrade and rollback tasks: a task
// that died before its Helm step runs again; after it, a release Helm left
// pending is recovered and the task ends failed, saying what to do next.
func (s *Runners) recoverRelease(ctx context.Context, run *executor.Run, next string) (bool, string, error) {
	started, err := s.helmStepStarted(ctx, run.Task.ID)
	if err != nil || !started {
		return !started, "Nothing had changed in the cluster yet, so the task runs again.", err
	}
	cluster, err := s.deployments.NeedCluster()
	if err != nil {
		return false, "", err
	}
	row, err := s.q.GetDeploymentByID(ctx, run.Task.DeploymentID)
	if err != nil {
		return false, "", fmt.Errorf("runner: task %d: %w", run.Task.ID, err)
	}
	owner, err := s.deployments.ReleaseOwner(ctx, row.ID)
	if err != nil {
		return false, "", err
	}
	rec, err := cluster.Releases.RecoverPending(ctx, row.Namespace, row.Name, owner)
	switch {
	case styrmin.ErrorCode(err) == styrmin.ENOTFOUND:
		rec.Message = "Helm has no record of the release."
	case err != nil:
		return false, "", err
	}
	if err := s.q.SetDeploymentStatus(ctx, db.SetDeploymentStatusParams{ID: row.ID, Status: deployment.StatusFailed}); err != nil {
		return false, "", fmt.Errorf("runner: task %d: %w", run.Task.ID, err)
	}
	return false, fmt.Sprintf("%s %s", rec.Message, next), nil
}
