package deployment

import (
	"cmp"
	"fmt"
	"maps"
	"strings"

	"github.com/styrmin/styrmin/drivers"
)

// hookActions are the actions of d that run at one of hooks and ask
// prompts, in declaration order: the sections of a form.
func hookActions(d *drivers.Driver, hooks ...drivers.Hook) []*drivers.Action {
	var out []*drivers.Action
	for i := range d.Spec.Actions {
		a := &d.Spec.Actions[i]
		for _, h := range hooks {
			if a.Hook == h && len(a.Prompts) > 0 {
				out = append(out, a)
			}
		}
	}
	return out
}

// promptText is the text each hook action's prompt fields start with, by
// action then prompt: the defaults, secrets blank.
func promptText(actions []*drivers.Action) map[string]map[string]string {
	text := map[string]map[string]string{}
	for _, a := range actions {
		text[a.Name] = FormText(a.Prompts, nil)
	}
	return text
}

// hookPrompts are the prompt values of the hook actions a task runs, by
// action then prompt: the plain ones travel in the task's inputs, the secret
// ones sealed in its secret inputs.
type hookPrompts struct {
	Plain   map[string]map[string]any
	Secrets map[string]map[string]string
}

// add records the values of action's prompts.
func (p *hookPrompts) add(action string, v Values) {
	if len(v.Plain) > 0 {
		if p.Plain == nil {
			p.Plain = map[string]map[string]any{}
		}
		p.Plain[action] = v.Plain
	}
	if len(v.Secrets) > 0 {
		if p.Secrets == nil {
			p.Secrets = map[string]map[string]string{}
		}
		p.Secrets[action] = v.Secrets
	}
}

// PromptValue is what one prompt of a hook action will run with, as a review
// shows it: a secret's value is never in it, only whether one was given.
type PromptValue struct {
	Action, ActionTitle string
	Hook                drivers.Hook
	Name, Title         string
	// Value is the value as the form's text ("" for a secret).
	Value       string
	Secret, Set bool
}

// values lists what each prompt of actions will run with (a value given,
// else its default), in the actions' and prompts' order.
func (p hookPrompts) values(actions []*drivers.Action) []PromptValue {
	var out []PromptValue
	for _, a := range actions {
		text := FormText(a.Prompts, &Values{Plain: WithPromptDefaults(a, p.Plain[a.Name])})
		for _, prompt := range a.Prompts {
			v := PromptValue{
				Action: a.Name, ActionTitle: cmp.Or(a.Title, a.Name), Hook: a.Hook,
				Name: prompt.Name, Title: cmp.Or(prompt.Title, prompt.Name),
				Secret: prompt.Type == drivers.TypeSecret,
			}
			if v.Secret {
				_, v.Set = p.Secrets[a.Name][prompt.Name]
			} else {
				v.Value, v.Set = text[prompt.Name], true
			}
			out = append(out, v)
		}
	}
	return out
}

// promptSecretPrefix starts the key of a secret prompt in a task's sealed
// secret inputs, prompt/<action>/<prompt>: no parameter name holds a '/'.
const promptSecretPrefix = "prompt/"

// TaskSecretInputs are a task's sealed secret inputs: the deployment's secret
// parameter values (upgrade) and its hook actions' secret prompt values.
type TaskSecretInputs struct {
	Params  map[string]string
	Prompts map[string]map[string]string
}

// sealable is the one map that is sealed into a task's secret inputs.
func (t TaskSecretInputs) sealable() map[string]string {
	out := maps.Clone(t.Params)
	if out == nil {
		out = map[string]string{}
	}
	for action, values := range t.Prompts {
		for name, v := range values {
			out[promptSecretPrefix+action+"/"+name] = v
		}
	}
	return out
}

// SplitTaskSecrets takes the opened secret inputs of a task apart again, as
// TaskSecretInputs.sealable put them together.
func SplitTaskSecrets(opened map[string]string) (TaskSecretInputs, error) {
	t := TaskSecretInputs{Params: map[string]string{}, Prompts: map[string]map[string]string{}}
	for key, v := range opened {
		rest, isPrompt := strings.CutPrefix(key, promptSecretPrefix)
		if !isPrompt {
			t.Params[key] = v
			continue
		}
		action, name, ok := strings.Cut(rest, "/")
		if !ok || action == "" || name == "" {
			return TaskSecretInputs{}, fmt.Errorf("deployment: secret input %q names no action and prompt", key)
		}
		if t.Prompts[action] == nil {
			t.Prompts[action] = map[string]string{}
		}
		t.Prompts[action][name] = v
	}
	return t, nil
}

// WithSecretPrompts is the prompt values the hooks of a task get: the plain
// ones of its inputs with its secret ones added.
func WithSecretPrompts(plain map[string]map[string]any, secret map[string]map[string]string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for action, values := range plain {
		out[action] = maps.Clone(values)
	}
	for action, values := range secret {
		if out[action] == nil {
			out[action] = map[string]any{}
		}
		for name, v := range values {
			out[action][name] = v
		}
	}
	return out
}

// WithPromptDefaults is the prompt values of a run: those given, else each
// prompt's default.
func WithPromptDefaults(a *drivers.Action, given map[string]any) map[string]any {
	values := map[string]any{}
	for i := range a.Prompts {
		p := &a.Prompts[i]
		if v, ok := given[p.Name]; ok {
			values[p.Name] = v
		} else if p.Default != nil {
			values[p.Name] = p.Default
		}
	}
	return values
}
