package schedule

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
)

// The largest retention a schedule keeps (the migration's checks agree).
const (
	MaxKeepLast = 1000
	MaxKeepDays = 3650
)

// Retention is what a schedule keeps of its runs' artefacts: the newest
// KeepLast and those of the last KeepDays days; 0 leaves a rule unset, and
// both 0 keeps everything (no prune).
type Retention struct {
	KeepLast, KeepDays int
}

// Set says whether r keeps less than everything: a prune follows each run.
func (r Retention) Set() bool {
	return r.KeepLast != 0 || r.KeepDays != 0
}

// String is r in words: "the last 7", "30 days", "the last 7 or 30 days";
// "" when r is not set.
func (r Retention) String() string {
	var rules []string
	if r.KeepLast != 0 {
		rules = append(rules, fmt.Sprintf("the last %d", r.KeepLast))
	}
	if r.KeepDays != 0 {
		rules = append(rules, fmt.Sprintf("%d days", r.KeepDays))
	}
	return strings.Join(rules, " or ")
}

// prunePrompts are what the prune action that follows each run of a
// schedule gets: Plain, its plain prompt values, and
// Secrets, the names of the schedule's secret prompts it takes too, unsealed
// only when a worker queues it.
type prunePrompts struct {
	Plain   map[string]any
	Secrets []string
}

// check checks r's ranges into fields and, when r is set, works out the
// prompts of the prune action that follows each run of checked: the
// retention (drivers.PromptKeepLast, drivers.PromptKeepDays) and the
// prompt values the two actions share by name, plain with plain and secret
// with secret, checked as a run of the prune action would be. A prompt the
// prune needs that the schedule does not hold is refused at the scheduled
// action's field of that name (else at the retention's). It returns the
// prune's prompts, nil when r is not set or is refused.
func (r Retention) check(ctx context.Context, deployments Deployments, name string, checked *deployment.CheckedAction, fields map[string]string) (*prunePrompts, error) {
	rangeErr := func(key string, v, most int) bool {
		if v < 0 || v > most {
			fields[key] = fmt.Sprintf("keep 1 to %d, or 0 (or nothing) for no such rule; not %d", most, v)
			return true
		}
		return false
	}
	if bad := rangeErr(FieldKeepLast, r.KeepLast, MaxKeepLast); rangeErr(FieldKeepDays, r.KeepDays, MaxKeepDays) || bad || !r.Set() || checked == nil {
		return nil, nil
	}
	field := FieldKeepLast
	if r.KeepLast == 0 {
		field = FieldKeepDays
	}
	if checked.Prune == nil {
		fields[field] = fmt.Sprintf("action %s declares no artefacts to prune (its driver names no prune action for it), so a schedule of it keeps everything", checked.Action)
		return nil, nil
	}
	prune, err := deployments.CheckAction(ctx, &deployment.RunAction{Name: name, Action: checked.Prune.Name, Prompts: r.shared(checked)})
	var invalid *deployment.InvalidError
	switch {
	case errors.As(err, &invalid):
		refusePrune(checked, invalid, field, fields)
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &prunePrompts{Plain: prune.Plain, Secrets: slices.Sorted(maps.Keys(prune.Secrets))}, nil
}

// shared are the prompt values of the prune of checked's runs: the
// retention, and the values of checked's prompts that the prune declares
// under the same name, a plain one for a plain prompt and a secret one for
// a secret prompt (a secret value never becomes a plain one, stored in
// clear).
func (r Retention) shared(checked *deployment.CheckedAction) deployment.JSONInput {
	prompts := deployment.JSONInput{drivers.PromptKeepLast: r.KeepLast, drivers.PromptKeepDays: r.KeepDays}
	for _, p := range checked.Prune.Prompts {
		if p.Name == drivers.PromptKeepLast || p.Name == drivers.PromptKeepDays {
			continue
		}
		if v, ok := checked.Plain[p.Name]; ok && p.Type != drivers.TypeSecret {
			prompts[p.Name] = v
		} else if v, ok := checked.Secrets[p.Name]; ok && p.Type == drivers.TypeSecret {
			prompts[p.Name] = v
		}
	}
	return prompts
}

// refusePrune records why the prune action of checked refuses the prompts a
// schedule would give it: a prompt the scheduled action declares too at
// that prompt's field (its value is the schedule's to give), the others at
// the retention's field.
func refusePrune(checked *deployment.CheckedAction, invalid *deployment.InvalidError, field string, fields map[string]string) {
	var msgs []string
	for _, f := range invalid.Fields {
		n := f.Field.Name
		if f.Field.Kind == deployment.FieldPrompt && n != drivers.PromptKeepLast && n != drivers.PromptKeepDays && checked.Declared.Prompt(n) != nil {
			fields[deployment.PromptField(checked.Action, n).FormKey()] = fmt.Sprintf("the prune action %s that follows each run needs this prompt too, and gets the schedule's value: %s", checked.Prune.Name, f.Message)
			continue
		}
		msgs = append(msgs, n+": "+f.Message)
	}
	if len(msgs) > 0 {
		fields[field] = fmt.Sprintf("the prune action %s refuses this retention (%s)", checked.Prune.Name, strings.Join(msgs, "; "))
	}
}
