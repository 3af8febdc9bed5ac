package deployment

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
)

// TaskInputs is what a task was asked to do, typed by its kind (the
// registry is taskInputsOf): *InstallInputs, *UpgradeInputs,
// *RollbackInputs, *ComponentsInputs (stop and start), *DeleteInputs,
// *ActionInputs or *ReconcileInputs. It never holds a secret value: secret inputs travel sealed
// apart (TaskSecretInputs). The JSON keys are the stored form, read by the
// runners; the REST API has its own types (api/openapi.yaml's TaskInputs).
type TaskInputs interface {
	isTaskInputs()
}

// InstallInputs are an install task's inputs.
type InstallInputs struct {
	DriverVersion string `json:"driver_version"`
	AppVersion    string `json:"app_version"`
	Namespace     string `json:"namespace"`
	// Parameters are the plain parameter values, defaults filled in.
	Parameters map[string]any `json:"parameters"`
	// Prompts holds the plain prompt values of hook actions, by action.
	Prompts map[string]map[string]any `json:"prompts,omitempty"`
}

// UpgradeInputs are an upgrade task's inputs.
type UpgradeInputs struct {
	FromDriverVersion string `json:"from_driver_version"`
	DriverVersion     string `json:"driver_version"`
	FromAppVersion    string `json:"from_app_version"`
	AppVersion        string `json:"app_version"`
	// Parameters are the plain parameter values after the upgrade.
	Parameters map[string]any `json:"parameters"`
	// Changed names the parameters that change, secrets included.
	Changed []string `json:"changed"`
	// Prompts holds the plain prompt values of hook actions, by action.
	Prompts map[string]map[string]any `json:"prompts,omitempty"`
}

// RollbackInputs are a rollback task's inputs: the revision it goes back
// to, with that revision's versions.
type RollbackInputs struct {
	Revision      int    `json:"revision"`
	DriverVersion string `json:"driver_version"`
	AppVersion    string `json:"app_version"`
}

// ComponentsInputs are a stop or start task's inputs.
type ComponentsInputs struct {
	// Components names the components; empty means all of them.
	Components []string `json:"components"`
}

// DeleteInputs are a delete task's inputs.
type DeleteInputs struct {
	// Prompts holds the plain prompt values of hook actions, by action.
	Prompts map[string]map[string]any `json:"prompts,omitempty"`
}

// ActionInputs are a manual action task's inputs.
type ActionInputs struct {
	Action string `json:"action"`
	// Prompts are the action's plain prompt values, defaults filled in.
	Prompts map[string]any `json:"prompts"`
}

// ReconcileInputs are a reconcile task's inputs: none, as it re-applies
// the release's last revision as the task finds it.
type ReconcileInputs struct{}

func (*InstallInputs) isTaskInputs()    {}
func (*UpgradeInputs) isTaskInputs()    {}
func (*RollbackInputs) isTaskInputs()   {}
func (*ComponentsInputs) isTaskInputs() {}
func (*DeleteInputs) isTaskInputs()     {}
func (*ActionInputs) isTaskInputs()     {}
func (*ReconcileInputs) isTaskInputs()  {}

// readTaskInputs decodes the stored inputs of a task of kind as that kind's
// type, once, for every reader. Keys its type does not name are left out.
// Inputs stored in another shape (a row written by hand, or by another
// version of Styrmin) still read: the fields that decode are kept, the
// others are left empty, and unread says what could not be read. A kind
// outside TaskKinds is an error (the tasks.kind CHECK constraint keeps
// them out of the table).
func readTaskInputs(kind string, stored []byte) (in TaskInputs, unread string, err error) {
	in = taskInputsOf(kind)
	if in == nil {
		return nil, "", fmt.Errorf("kind %q has no inputs type", kind)
	}
	err = json.Unmarshal(stored, in)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return in, "", nil
	case errors.As(err, &typeErr):
		return in, fmt.Sprintf("The stored %s inputs could not all be read: %s holds a JSON %s.", kind, cmp.Or(typeErr.Field, "the top level"), typeErr.Value), nil
	}
	return in, fmt.Sprintf("The stored %s inputs could not be read: %v.", kind, err), nil
}
