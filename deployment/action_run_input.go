package deployment

import (
	"cmp"
	"context"
	"encoding/json"
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

// runTaskInputs are the fields of a task's inputs that say which bundle its
// actions run from and with which plain prompts: a hook task's prompts are
// by action (InstallInputs, UpgradeInputs, DeleteInputs), a manual action
// task's are its own action's (ActionInputs).
type runTaskInputs struct {
	DriverVersion string          `json:"driver_version"`
	Prompts       json.RawMessage `json:"prompts"`
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
	var in runTaskInputs
	if err := json.Unmarshal(task.Inputs, &in); err != nil {
		return nil, fmt.Errorf("deployment: task %d inputs: %w", task.ID, err)
	}
	b, err := s.catalog.Bundle(ctx, row.DriverName, cmp.Or(in.DriverVersion, row.DriverVersion))
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
	prompts := map[string]any{}
	if task.Kind == KindAction {
		err = unmarshalPrompts(in.Prompts, &prompts)
		for name, v := range opened {
			prompts[name] = v
		}
	} else {
		var byAction map[string]map[string]any
		err = unmarshalPrompts(in.Prompts, &byAction)
		secret, splitErr := SplitTaskSecrets(opened)
		err = cmp.Or(err, splitErr)
		prompts = WithSecretPrompts(byAction, secret.Prompts)[c.Action]
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: task %d prompts: %w", task.ID, err)
	}
	return &RunInput{Files: b.Files, Prompts: WithPromptDefaults(a, prompts)}, nil
}

// unmarshalPrompts decodes a task's plain prompts; none leaves v as it is.
func unmarshalPrompts(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}
