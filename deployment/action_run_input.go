package deployment

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/styrmin/styrmin"
)

// RunInput is what an action run starts from: its bundle's files and its
// prompt values. The pod runtime's entrypoint reads it through the action
// API (GET run), as the process runtime is handed it.
type RunInput struct {
	// Files are the bundle's files by slash path (JSON: base64).
	Files map[string][]byte `json:"files"`
	// Prompts are the run's prompt values (secret ones included), defaults
	// filled in.
	Prompts map[string]any `json:"prompts"`
}

// ReadRunInput returns the input of the caller's run, as the executor gave
// it the run: the bundle of the task's driver version (an install's or an
// upgrade's; else the deployment's) and the prompts of the caller's action
// in the task's inputs, its sealed secret prompts opened.
func (s *Service) ReadRunInput(ctx context.Context, c *Caller) (*RunInput, error) {
	task, err := s.q.GetTask(ctx, c.TaskID)
	if err != nil {
		return nil, fmt.Errorf("deployment: action's task %d: %w", c.TaskID, err)
	}
	row, err := s.q.GetDeploymentByID(ctx, c.DeploymentID)
	if err != nil {
		return nil, fmt.Errorf("deployment: action's deployment: %w", err)
	}
	in, unread, err := readTaskInputs(task.Kind, task.Inputs)
	if err == nil && unread != "" {
		err = errors.New(unread)
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: task %d inputs: %w", task.ID, err)
	}
	driverVersion, byAction := runSource(in)
	b, err := s.catalog.Bundle(ctx, row.DriverName, cmp.Or(driverVersion, row.DriverVersion))
	if err != nil {
		return nil, err
	}
	a := b.Driver.Action(c.Action)
	if a == nil {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "Driver %s %s has no action %s.", b.Driver.Metadata.Name, b.Driver.Spec.Version, c.Action)
	}
	opened, err := s.box.OpenValues(task.SecretInputs, TaskSecretsAt(task.ID, row.ID))
	if err != nil {
		return nil, fmt.Errorf("deployment: task %d secret inputs: %w", task.ID, err)
	}
	var prompts map[string]any
	if action, ok := in.(*ActionInputs); ok {
		if prompts = action.Prompts; prompts == nil {
			prompts = map[string]any{}
		}
		for name, v := range opened {
			prompts[name] = v
		}
	} else {
		secret, err := SplitTaskSecrets(opened)
		if err != nil {
			return nil, fmt.Errorf("deployment: task %d prompts: %w", task.ID, err)
		}
		prompts = WithSecretPrompts(byAction, secret.Prompts)[c.Action]
	}
	return &RunInput{Files: b.Files, Prompts: WithPromptDefaults(a, prompts)}, nil
}

// runSource is what of a task's inputs its actions run from: the driver
// version whose bundle they run (an install's or an upgrade's; "" for the
// deployment's) and the plain prompts of its hook actions, by action.
func runSource(in TaskInputs) (driverVersion string, byAction map[string]map[string]any) {
	switch in := in.(type) {
	case *InstallInputs:
		return in.DriverVersion, in.Prompts
	case *UpgradeInputs:
		return in.DriverVersion, in.Prompts
	case *DeleteInputs:
		return "", in.Prompts
	}
	return "", nil
}
