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
	"github.com/styrmin/styrmin/executor"
)

// rollbackInputs are a rollback task's inputs.
type rollbackInputs struct {
	Revision      int    `json:"revision"`
	DriverVersion string `json:"driver_version"`
	AppVersion    string `json:"app_version"`
}

// Rollback queues a rollback to an earlier revision that Styrmin made; its
// parameters and versions come back with it.
func (s *Service) Rollback(ctx context.Context, name string, revision int, by string) (*Queued, error) {
	var row db.Deployment
	var dep *Deployment
	if err := s.liveDeployment(ctx, name, &row, &dep); err != nil {
		return nil, err
	}
	rev, err := s.q.GetRevision(ctx, db.GetRevisionParams{DeploymentID: row.ID, Revision: int32(revision)})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Deployment %s has no revision %d to roll back to.", name, revision)
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: rollback %s: %w", name, err)
	}
	inputs := rollbackInputs{Revision: revision, DriverVersion: rev.DriverVersion, AppVersion: rev.AppVersion}
	return s.queueSimple(ctx, row, KindRollback, inputs, by)
}

// componentsInputs are a stop or start task's inputs.
type componentsInputs struct {
	// Components names the components; empty means all of them.
	Components []string `json:"components"`
}

// Stop queues a task that scales the named components (all when none) to 0.
func (s *Service) Stop(ctx context.Context, name string, components []string, by string) (*Queued, error) {
	return s.queueComponents(ctx, name, KindStop, components, by)
}

// Start queues a task that scales the named components (all when none) back
// to their replicas before the stop, or their defaults.
func (s *Service) Start(ctx context.Context, name string, components []string, by string) (*Queued, error) {
	return s.queueComponents(ctx, name, KindStart, components, by)
}

// queueComponents checks component names against the driver and queues kind.
func (s *Service) queueComponents(ctx context.Context, name, kind string, components []string, by string) (*Queued, error) {
	var row db.Deployment
	var dep *Deployment
	drv, err := s.liveDriver(ctx, name, &row, &dep)
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
			return nil, styrmin.Errorf(styrmin.EINVALID, "Deployment %s has no component %q; it has %s.", name, c, strings.Join(known, ", "))
		}
	}
	return s.queueSimple(ctx, row, kind, componentsInputs{Components: components}, by)
}

// DeleteForm is the confirmation form of a deployment's deletion.
type DeleteForm struct {
	Deployment *Deployment
	// HookActions are the delete hook actions that ask prompts, a section
	// each; Prompts the text their fields start with, by action then prompt.
	HookActions []*drivers.Action
	Prompts     map[string]map[string]string
}

// deleteHooks are the hooks a delete task runs.
var deleteHooks = []drivers.Hook{drivers.HookPreDelete, drivers.HookPostDelete}

// DeleteForm returns the form that confirms the deletion of a live deployment.
func (s *Service) DeleteForm(ctx context.Context, name string) (*DeleteForm, error) {
	var row db.Deployment
	var dep *Deployment
	drv, err := s.liveDriver(ctx, name, &row, &dep)
	if err != nil {
		return nil, err
	}
	actions := hookActions(drv, deleteHooks...)
	return &DeleteForm{Deployment: dep, HookActions: actions, Prompts: promptText(actions)}, nil
}

// Delete queues the deletion of a deployment; confirm must repeat its name,
// and prompts holds the prompt fields of its delete hook actions (action →
// prompt → text). Bad fields are an EINVALID error keyed confirm and
// prompt.<action>.<prompt>.
func (s *Service) Delete(ctx context.Context, name, confirm string, prompts map[string]map[string]string, by string) (*Queued, error) {
	var row db.Deployment
	var dep *Deployment
	drv, err := s.liveDriver(ctx, name, &row, &dep)
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	if strings.TrimSpace(confirm) != name {
		fields["confirm"] = fmt.Sprintf("type %s to confirm", name)
	}
	values := readPrompts(hookActions(drv, deleteHooks...), prompts, fields)
	if len(fields) > 0 {
		return nil, invalid(fields)
	}
	secretInputs := taskSecrets{Prompts: values.Secrets}.sealable()
	return s.queueSimpleWithSecrets(ctx, row, KindDelete, deleteInputs{Prompts: values.Plain}, secretInputs, by)
}

// queueSimple queues a task without secret inputs.
func (s *Service) queueSimple(ctx context.Context, row db.Deployment, kind string, inputs any, by string) (*Queued, error) {
	return s.queueSimpleWithSecrets(ctx, row, kind, inputs, nil, by)
}

// queueSimpleWithSecrets queues a task with its secret inputs.
func (s *Service) queueSimpleWithSecrets(ctx context.Context, row db.Deployment, kind string, inputs any, secretInputs map[string]string, by string) (*Queued, error) {
	var task db.Task
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		task, err = s.queueTask(ctx, tx, row.ID, kind, inputs, secretInputs, by)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("deployment: %s %s: %w", kind, row.Name, err)
	}
	return &Queued{TaskID: task.ID, Deployment: row.Name}, nil
}

// CancelTask cancels a task of the named deployment: a queued one at once, a
// running one at its runner's next heartbeat (a running action is stopped,
// the tasks it started are cancelled, the release recovered, and the task
// ends canceled).
func (s *Service) CancelTask(ctx context.Context, name string, taskID int64, by string) error {
	if _, err := s.Task(ctx, name, taskID); err != nil {
		return err
	}
	err := s.queue.CancelQueued(ctx, taskID, fmt.Sprintf("Cancelled by %s before it started.", by))
	if errors.Is(err, executor.ErrNotQueued) {
		err = s.queue.RequestCancel(ctx, taskID, by)
	}
	if errors.Is(err, executor.ErrNotRunning) {
		return styrmin.Errorf(styrmin.ECONFLICT, "Task %d has ended; there is nothing to cancel.", taskID)
	}
	return err
}
