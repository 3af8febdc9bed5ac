package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
)

// ArtefactPage is how many artefacts Artefacts returns, the newest.
const ArtefactPage = 50

// Artefacts are what the runs of a deployment's actions that declare
// artefacts (drivers.Artefacts) produced, as its page and the API show them.
// Styrmin knows what each run's result named, not whether the artefact
// still exists: an artefact is marked pruned only when a later run of its
// prune action listed it among those it deleted.
type Artefacts struct {
	// Actions are the manual actions of the deployment's driver version that
	// declare artefacts, in the driver's order; none: the driver declares
	// none (or the catalogue lost the version), and Items is empty.
	Actions []string
	// Items are the newest ArtefactPage artefacts, newest first.
	Items []Artefact
	// More says that older runs produced artefacts too.
	More bool
}

// Artefact is the artefact a succeeded run named in its result.
type Artefact struct {
	// Name is the artefact's name as the run's result gave it, redacted.
	Name string
	// SizeBytes is its size; nil when the result did not say.
	SizeBytes *int64
	// Action is the action whose run produced it; TaskID that run's task,
	// By who queued it and At when it ended.
	Action string
	TaskID int64
	By     string
	At     time.Time
	// PrunedBy is the first later run of the prune action whose result
	// listed the artefact among those it deleted; 0 when none did.
	PrunedBy int64
}

// artefactResult is what a run's result says of its artefact (drivers.Action's Artefacts).
type artefactResult struct {
	Name      string `json:"name"`
	SizeBytes *int64 `json:"size_bytes"`
}

// Artefacts returns the artefacts that the runs of the named deployment's
// actions produced, newest first, in one read bounded by ArtefactPage; the
// names go through the deployment's redactor, as its tasks' texts do. An
// unknown name is an ENOTFOUND error.
func (s *Service) Artefacts(ctx context.Context, name string) (*Artefacts, error) {
	d, err := s.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	spec, err := catalog.Absent(s.catalog.Spec(ctx, d.Driver, d.DriverVersion))
	if err != nil {
		return nil, err
	}
	out := &Artefacts{}
	var prunes []string
	if spec.Driver != nil {
		out.Actions, prunes = artefactActions(spec.Driver)
	}
	if len(out.Actions) == 0 {
		return out, nil
	}
	rows, err := s.q.ListDeploymentArtefacts(ctx, db.ListDeploymentArtefactsParams{DeploymentID: d.ID, Actions: out.Actions,
		PruneActions: prunes, MaxRows: ArtefactPage + 1})
	if err != nil {
		return nil, fmt.Errorf("deployment: artefacts of %s: %w", name, err)
	}
	if len(rows) > ArtefactPage {
		rows, out.More = rows[:ArtefactPage], true
	}
	r, err := s.deploymentRedactor(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		var res artefactResult
		if err := json.Unmarshal(row.Result, &res); err != nil {
			// A size that is no integer: the name still stands.
			res.SizeBytes = nil
		}
		a := Artefact{Name: r.String(res.Name), SizeBytes: res.SizeBytes, Action: row.Action, TaskID: row.TaskID,
			By: r.String(row.CreatedBy), PrunedBy: row.PrunedBy}
		if row.EndedAt != nil {
			a.At = *row.EndedAt
		}
		out.Items = append(out.Items, a)
	}
	return out, nil
}

// artefactActions are the manual actions of d that declare artefacts and
// the actions that prune them, each once.
func artefactActions(d *drivers.Driver) (actions, prunes []string) {
	for _, a := range d.Spec.Actions {
		if a.Hook != drivers.HookManual || a.Artefacts.Prune == "" {
			continue
		}
		actions = append(actions, a.Name)
		if !slices.Contains(prunes, a.Artefacts.Prune) {
			prunes = append(prunes, a.Artefacts.Prune)
		}
	}
	return actions, prunes
}
