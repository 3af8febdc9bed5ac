package deployment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
)

// Rollback goes back to an earlier revision that Styrmin made; its
// parameters and versions come back with it.
type Rollback struct {
	Name     string
	Revision int
	By       string
}

// plan checks that the revision exists.
func (r *Rollback) plan(ctx context.Context, s *Service) (plan, error) {
	if r.Revision < 1 {
		var errs fieldErrors
		errs.add(Field{Kind: FieldRevision}, "give the revision to roll back to, 1 or more")
		return nil, errs.err()
	}
	var row db.Deployment
	var dep *Deployment
	if err := s.liveDeployment(ctx, r.Name, &row, &dep); err != nil {
		return nil, err
	}
	rev, err := s.q.GetRevision(ctx, db.GetRevisionParams{DeploymentID: row.ID, Revision: int32(r.Revision)})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Deployment %s has no revision %d to roll back to.", r.Name, r.Revision)
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: rollback %s: %w", r.Name, err)
	}
	inputs := RollbackInputs{Revision: r.Revision, DriverVersion: rev.DriverVersion, AppVersion: rev.AppVersion}
	return &taskPlan{row: row, kind: KindRollback, inputs: inputs, by: r.By}, nil
}

// Stop scales the named components of a deployment (all when none) to 0.
type Stop struct {
	Name       string
	Components []string
	By         string
}

// Start scales the named components of a deployment (all when none) back to
// their replicas before the stop, or their defaults.
type Start struct {
	Name       string
	Components []string
	By         string
}

// plan checks the component names.
func (o *Stop) plan(ctx context.Context, s *Service) (plan, error) {
	return s.planLive(ctx, o.Name, o.By, o.planOn)
}

// planOn checks the component names against the deployment's driver.
func (o *Stop) planOn(ctx context.Context, s *Service, row db.Deployment, dep *Deployment, by string) (*taskPlan, error) {
	return s.planComponents(ctx, row, dep, KindStop, o.Components, by)
}

// plan checks the component names.
func (o *Start) plan(ctx context.Context, s *Service) (plan, error) {
	return s.planLive(ctx, o.Name, o.By, o.planOn)
}

// planOn checks the component names against the deployment's driver.
func (o *Start) planOn(ctx context.Context, s *Service, row db.Deployment, dep *Deployment, by string) (*taskPlan, error) {
	return s.planComponents(ctx, row, dep, KindStart, o.Components, by)
}

// planLive reads the named live deployment and plans on it with planOn.
func (s *Service) planLive(ctx context.Context, name, by string, planOn func(context.Context, *Service, db.Deployment, *Deployment, string) (*taskPlan, error)) (plan, error) {
	var row db.Deployment
	var dep *Deployment
	if err := s.liveDeployment(ctx, name, &row, &dep); err != nil {
		return nil, err
	}
	return planOn(ctx, s, row, dep, by)
}

// planComponents checks component names against the deployment's driver
// (the one place that does) and plans a task of kind (KindStop, KindStart)
// on them.
func (s *Service) planComponents(ctx context.Context, row db.Deployment, dep *Deployment, kind string, components []string, by string) (*taskPlan, error) {
	drv, err := s.driverSpec(ctx, dep)
	if err != nil {
		return nil, err
	}
	var known []string
	for _, c := range drv.Spec.Components {
		known = append(known, c.Name)
	}
	if len(known) == 0 {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Driver %s declares no components to %s.", dep.Driver, kind)
	}
	for _, c := range components {
		if !slices.Contains(known, c) {
			return nil, styrmin.Errorf(styrmin.EINVALID, "Deployment %s has no component %q; it has %s.", dep.Name, c, strings.Join(known, ", "))
		}
	}
	return &taskPlan{row: row, kind: kind, inputs: ComponentsInputs{Components: components}, by: by}, nil
}

// Reconcile re-applies a deployment's release as it is (its last
// revision's own chart and values, as a new revision), undoing what was
// changed behind Helm's back; stopped components stay stopped, and the
// differences accepted before are forgotten.
type Reconcile struct {
	Name string
	By   string
}

// plan checks that the deployment is live.
func (o *Reconcile) plan(ctx context.Context, s *Service) (plan, error) {
	return s.planLive(ctx, o.Name, o.By, func(_ context.Context, _ *Service, row db.Deployment, _ *Deployment, by string) (*taskPlan, error) {
		return &taskPlan{row: row, kind: KindReconcile, inputs: ReconcileInputs{}, by: by}, nil
	})
}

// Delete deletes a deployment: its release, then its record (it stays in
// the history). Confirm must repeat its name; Prompts are the prompts of
// its delete hook actions.
type Delete struct {
	Name, Confirm string
	Prompts       PromptsInput
	By            string
}

// deleteHooks are the hooks a delete task runs.
var deleteHooks = []drivers.Hook{drivers.HookPreDelete, drivers.HookPostDelete}

// plan checks the confirmation and the prompts.
func (o *Delete) plan(ctx context.Context, s *Service) (plan, error) {
	var row db.Deployment
	var dep *Deployment
	drv, err := s.liveDriver(ctx, o.Name, &row, &dep)
	if err != nil {
		return nil, err
	}
	var errs fieldErrors
	if strings.TrimSpace(o.Confirm) != o.Name {
		errs.add(Field{Kind: FieldConfirm}, fmt.Sprintf("type %s to confirm", o.Name))
	}
	prompts := readHookPrompts(hookActions(drv, deleteHooks...), o.Prompts, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	secretInputs := TaskSecretInputs{Prompts: prompts.Secrets}.sealable()
	return &taskPlan{row: row, kind: KindDelete, inputs: DeleteInputs{Prompts: prompts.Plain}, secrets: secretInputs, by: o.By}, nil
}

// RunAction runs a manual action of a deployment's driver version with
// Prompts, its prompts' values; bad ones are keyed PromptField(Action, name).
type RunAction struct {
	Name, Action string
	Prompts      Input
	By           string
}

// plan checks that the action is a manual one and reads its prompts.
func (o *RunAction) plan(ctx context.Context, s *Service) (plan, error) {
	p, _, err := o.check(ctx, s)
	return p, err
}

// check checks that the action is a manual one, reads its prompts and
// works out its task and what a schedule of it keeps.
func (o *RunAction) check(ctx context.Context, s *Service) (*taskPlan, *CheckedAction, error) {
	var row db.Deployment
	var dep *Deployment
	drv, err := s.liveDriver(ctx, o.Name, &row, &dep)
	if err != nil {
		return nil, nil, err
	}
	a := ManualAction(drv, o.Action)
	if a == nil {
		return nil, nil, styrmin.Errorf(styrmin.ENOTFOUND, "Driver %s %s has no manual action %q.", dep.Driver, dep.DriverVersion, o.Action)
	}
	values, bad, shape := readInput(o.Prompts, a.Prompts, nil)
	var errs fieldErrors
	errs.addRead(bad, shape, func(name string) Field { return PromptField(a.Name, name) })
	if err := errs.err(); err != nil {
		return nil, nil, err
	}
	inputs := ActionInputs{Action: a.Name, Prompts: values.Plain}
	checked := &CheckedAction{DeploymentID: row.ID, Action: a.Name, Declared: a, Plain: values.Plain, Secrets: values.Secrets}
	if a.Artefacts.Prune != "" {
		checked.Prune = ManualAction(drv, a.Artefacts.Prune)
	}
	return &taskPlan{row: row, kind: KindAction, inputs: inputs, secrets: values.Secrets, by: o.By}, checked, nil
}

// CheckedAction is a manual action run that RunAction's checks accepted,
// not queued: what a schedule stores to run it later.
type CheckedAction struct {
	DeploymentID int64
	Action       string
	// Declared is the action as its driver version declares it.
	Declared *drivers.Action
	// Plain are the plain prompt values, defaults filled in; Secrets the
	// secret ones, to seal.
	Plain   map[string]any
	Secrets map[string]string
	// Prune is the manual action that prunes the artefacts of this one's
	// runs (drivers.Artefacts); nil when it declares none.
	Prune *drivers.Action
}

// CheckAction checks o as Queue would (a live deployment, a manual action,
// prompt values typed by its prompts) and queues nothing.
func (s *Service) CheckAction(ctx context.Context, o *RunAction) (*CheckedAction, error) {
	_, checked, err := o.check(ctx, s)
	return checked, err
}

// ManualAction is d's action named name if a user may run it (its hook is
// manual), else nil.
func ManualAction(d *drivers.Driver, name string) *drivers.Action {
	a := d.Action(name)
	if a == nil || a.Hook != drivers.HookManual {
		return nil
	}
	return a
}
