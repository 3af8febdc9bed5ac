package schedule

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/styrmin/styrmin"
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

// check checks r's ranges into fields and, when r is set, works out the
// prompts of the prune action that follows each run of checked: the
// retention (drivers.PromptKeepLast, drivers.PromptKeepDays) and the plain
// prompt values the two actions share, checked as a run of the prune
// action would be. It returns them, nil when r is not set or is refused.
func (r Retention) check(ctx context.Context, deployments Deployments, name string, checked *deployment.CheckedAction, fields map[string]string) (map[string]any, error) {
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
	prompts := deployment.JSONInput{drivers.PromptKeepLast: r.KeepLast, drivers.PromptKeepDays: r.KeepDays}
	for _, p := range checked.Prune.Prompts {
		if v, ok := checked.Plain[p.Name]; ok && p.Name != drivers.PromptKeepLast && p.Name != drivers.PromptKeepDays {
			prompts[p.Name] = v
		}
	}
	prune, err := deployments.CheckAction(ctx, &deployment.RunAction{Name: name, Action: checked.Prune.Name, Prompts: prompts})
	var invalid *deployment.InvalidError
	switch {
	case errors.As(err, &invalid):
		msgs := make([]string, 0, len(invalid.Fields))
		for _, f := range invalid.Fields {
			msgs = append(msgs, f.Field.Name+": "+f.Message)
		}
		fields[field] = fmt.Sprintf("the prune action %s refuses this retention (%s)", checked.Prune.Name, strings.Join(msgs, "; "))
		return nil, nil
	case err != nil:
		return nil, err
	case len(prune.Secrets) > 0:
		return nil, styrmin.Errorf(styrmin.EINVALID, "The prune action %s has secret prompts, which a schedule does not pass it.", checked.Prune.Name)
	}
	return prune.Plain, nil
}
