package deployment

import (
	"context"
	"errors"
	"fmt"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
)

// Rollback queues a rollback to an earlier revision that Styrmin made; its
// parameters and versions come back with it.
//
// Deprecated: phase 2 of issue 16 removes it; call Queue with a *Rollback.
func (s *Service) Rollback(ctx context.Context, name string, revision int, by string) (*Queued, error) {
	return s.Queue(ctx, &Rollback{Name: name, Revision: revision, By: by})
}

// Stop queues a task that scales the named components (all when none) to 0.
//
// Deprecated: phase 2 of issue 16 removes it; call Queue with a *Stop.
func (s *Service) Stop(ctx context.Context, name string, components []string, by string) (*Queued, error) {
	return s.Queue(ctx, &Stop{Name: name, Components: components, By: by})
}

// Start queues a task that scales the named components (all when none) back
// to their replicas before the stop, or their defaults.
//
// Deprecated: phase 2 of issue 16 removes it; call Queue with a *Start.
func (s *Service) Start(ctx context.Context, name string, components []string, by string) (*Queued, error) {
	return s.Queue(ctx, &Start{Name: name, Components: components, By: by})
}

// DeleteForm is the confirmation form of a deployment's deletion.
type DeleteForm struct {
	Deployment *Deployment
	// HookActions are the delete hook actions that ask prompts, a section
	// each; Prompts the text their fields start with, by action then prompt.
	HookActions []*drivers.Action
	Prompts     map[string]map[string]string
}

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
//
// Deprecated: phase 2 of issue 16 removes it; call Queue with a *Delete.
func (s *Service) Delete(ctx context.Context, name, confirm string, prompts map[string]map[string]string, by string) (*Queued, error) {
	return s.Queue(ctx, &Delete{Name: name, Confirm: confirm, Prompts: FormPrompts(prompts), By: by})
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
