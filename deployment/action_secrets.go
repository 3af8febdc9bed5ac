package deployment

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/redact"
)

// runSecrets are the secret values of an action run, which its redactor
// hides wherever the run's output is shown (its log lines, its error line,
// the tails of its Jobs): the deployment's secret parameter values, every
// sealed input of the run's task (its secret prompts; in an upgrade, the new
// secret parameter values) and the run's action token.
type runSecrets struct {
	// Params are the deployment's secret parameter values, by name.
	Params map[string]string
	// Inputs are the task's opened secret inputs, as sealed.
	Inputs map[string]string
	// Token is the run's action token ("" when unknown).
	Token string
}

// openRunSecrets opens the secrets of a run of task on the deployment row.
func (s *Service) openRunSecrets(row db.Deployment, task db.Task, token string) (runSecrets, error) {
	params, err := s.openValues(nil, nil, row.Secrets, DeploymentSecretsAt(row.ID))
	if err != nil {
		return runSecrets{}, err
	}
	inputs, err := s.box.OpenValues(task.SecretInputs, TaskSecretsAt(task.ID, row.ID))
	if err != nil {
		return runSecrets{}, fmt.Errorf("deployment: task %d secret inputs: %w", task.ID, err)
	}
	return runSecrets{Params: params.Secrets, Inputs: inputs, Token: token}, nil
}

// values lists every one of the run's secrets.
func (r runSecrets) values() []string {
	return append(append(secretList(r.Params), secretList(r.Inputs)...), r.Token)
}

// redactor replaces every one of the run's secrets.
func (r runSecrets) redactor() *redact.Redactor { return redact.New(r.values()...) }

// TaskSecrets returns the secret values of task, which everything its run
// records hides (executor.SecretsOf): its deployment's secret parameter
// values and its sealed inputs (secret prompts, an upgrade's new secrets).
func (s *Service) TaskSecrets(ctx context.Context, task db.Task) ([]string, error) {
	row, err := s.q.GetDeploymentByID(ctx, task.DeploymentID)
	if err != nil {
		return nil, fmt.Errorf("deployment: task %d: %w", task.ID, err)
	}
	secrets, err := s.openRunSecrets(row, task, "")
	return secrets.values(), err
}

// deploymentRedactor hides the secret parameter values of deployment id.
func (s *Service) deploymentRedactor(ctx context.Context, id int64) (*redact.Redactor, error) {
	row, err := s.q.GetDeploymentByID(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	values, err := s.openValues(nil, nil, row.Secrets, DeploymentSecretsAt(row.ID))
	if err != nil {
		return nil, err
	}
	return runSecrets{Params: values.Secrets}.redactor(), nil
}

// SecretPromptPrefix starts a secret_env value that names a secret prompt of
// the calling action instead of a secret parameter: "prompt.<name>". No
// parameter name holds a '.'.
const SecretPromptPrefix = "prompt."

// secretEnvValue is the value that execute_commands' secret_env entry ref
// gives a Job of action: the deployment's secret parameter ref, or the value
// the run got for the action's secret prompt "prompt.<name>". Anything else
// is an EINVALID error.
func (r runSecrets) secretEnvValue(drv *drivers.Driver, kind string, action, ref string) (string, error) {
	name, isPrompt := strings.CutPrefix(ref, SecretPromptPrefix)
	if !isPrompt {
		if !slices.ContainsFunc(drv.Spec.Parameters, func(p drivers.Parameter) bool { return p.Name == ref && p.Type == drivers.TypeSecret }) {
			return "", styrmin.Errorf(styrmin.EINVALID, "secret_env: %s is not a secret parameter of driver %s (a secret prompt is named %s<prompt>).", ref, drv.Metadata.Name, SecretPromptPrefix)
		}
		value, ok := r.Params[ref]
		if !ok {
			return "", styrmin.Errorf(styrmin.EINVALID, "secret_env: the secret parameter %s has no value.", ref)
		}
		return value, nil
	}
	a := drv.Action(action)
	if a == nil || !slices.ContainsFunc(a.Prompts, func(p drivers.Parameter) bool { return p.Name == name && p.Type == drivers.TypeSecret }) {
		return "", styrmin.Errorf(styrmin.EINVALID, "secret_env: %s is not a secret prompt of the action %s.", name, action)
	}
	key := promptSecretPrefix + action + "/" + name // a hook's task holds every hook action's prompts
	if kind == KindAction {
		key = name // a manual action's task holds its own prompts only
	}
	value, ok := r.Inputs[key]
	if !ok {
		return "", styrmin.Errorf(styrmin.EINVALID, "secret_env: the secret prompt %s was given no value in this run.", name)
	}
	return value, nil
}

// secretList is the values of a set of secrets, for redaction.
func secretList(secrets map[string]string) []string {
	out := make([]string, 0, len(secrets))
	for _, v := range secrets {
		out = append(out, v)
	}
	return out
}
