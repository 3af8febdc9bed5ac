package runner

import (
	"context"
	"fmt"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// actionRunner runs one manual action as the one hook step of its task.
type actionRunner struct{ s *Runners }

// Run runs the action with its prompts (secret ones unsealed) and returns its
// result with the tasks it started.
func (r actionRunner) Run(ctx context.Context, run *executor.Run) (any, error) {
	var in deployment.ActionInputs
	j, err := r.s.newTaskRun(ctx, run, &in)
	if err != nil {
		return nil, err
	}
	b, err := r.s.catalog.Bundle(ctx, j.row.DriverName, j.row.DriverVersion)
	if err != nil {
		return nil, err
	}
	secretPrompts, err := r.s.box.OpenValues(run.Task.SecretInputs, deployment.TaskSecretsAt(run.Task.ID, j.row.ID))
	if err != nil {
		return nil, err
	}
	prompts := in.Prompts
	if prompts == nil {
		prompts = map[string]any{}
	}
	for k, v := range secretPrompts {
		prompts[k] = v
	}
	a := b.Driver.Action(in.Action)
	if a == nil {
		return nil, fmt.Errorf("driver %s %s has no action %q any more", j.row.DriverName, j.row.DriverVersion, in.Action)
	}
	actionErr := j.runAction(ctx, b, a, prompts)
	linked, err := j.linked(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"action": a.Name, "linked": linked}, actionErr
}

// Recover ends a manual action whose process stopped: running it again could
// repeat what it did.
func (r actionRunner) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	return false, "The action may have done part of its work; run it again from the deployment page if it is safe.", nil
}
