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
