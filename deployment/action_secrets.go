package deployment

import (
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
	params, err := s.openValues(nil, nil, row.Secrets, deploymentSecretsAt(row.ID))
	if err != nil {
		return runSecrets{}, err
	}
	inputs, err := s.box.OpenValues(task.SecretInputs, taskSecretsAt(task.ID, row.ID))
	if err != nil {
		return runSecrets{}, fmt.Errorf("deployment: task %d secret inputs: %w", task.ID, err)
	}
	return runSecrets{Params: params.Secrets, Inputs: inputs, Token: token}, nil
}

// redactor replaces every one of the run's secrets.
func (r runSecrets) redactor() *redact.Redactor {
	values := append(secretList(r.Params), secretList(r.Inputs)...)
	return redact.New(append(values, r.Token)...)
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
