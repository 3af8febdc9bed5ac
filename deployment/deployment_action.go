package deployment

import (
	"context"
	"errors"
	"fmt"

	"github.com/styrmin/styrmin/executor"
)

// KindAction is the kind of a task that runs a manual action.
const KindAction = "action"

// RunAction queues a task that runs the manual action named action with the
// prompt fields of its form (prompt name → text). Bad fields are an EINVALID
// error keyed param.<prompt name>.
//
// Deprecated: phase 2 of issue 16 removes it; call Queue with a *RunAction
// (whose errors name PromptField(action, name)).
func (s *Service) RunAction(ctx context.Context, name, action string, form map[string]string, by string) (*Queued, error) {
	queued, err := s.Queue(ctx, &RunAction{Name: name, Action: action, Prompts: FormInput(form), By: by})
	var invalid *InvalidError
	if errors.As(err, &invalid) {
		for i, f := range invalid.Fields {
			invalid.Fields[i].Field = ParamField(f.Field.Name)
		}
	}
	return queued, err
}

// actionRunner runs one manual action as the one hook step of its task.
type actionRunner struct{ s *Service }

// Run runs the action with its prompts (secret ones unsealed) and returns its
// result with the tasks it started.
func (r actionRunner) Run(ctx context.Context, run *executor.Run) (any, error) {
	var in actionInputs
	j, err := r.s.newJob(ctx, run, &in)
	if err != nil {
		return nil, err
	}
	b, err := r.s.catalog.Bundle(ctx, j.row.DriverName, j.row.DriverVersion)
	if err != nil {
		return nil, err
	}
	secretPrompts, err := r.s.box.OpenValues(run.Task.SecretInputs, secretsLabel(j.row.ID))
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
