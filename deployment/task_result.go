package deployment

import (
	"encoding/json"

	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/permissions"
)

// The results the runners (package runner) record on tasks, as the pages
// and the API read them back.

// FailedResult is the result of a task that failed after its actions
// started tasks, or because its chart creates what no admin approved.
type FailedResult struct {
	Linked  []LinkedResult      `json:"linked,omitempty"`
	Refused *RefusedPermissions `json:"refused_permissions,omitempty"`
}

// RefusedPermissions is what a task's chart creates that no admin approved
// for its driver version (permissions.RefusedError), kept in the failed
// task's result so that its page can offer admins to approve exactly that.
type RefusedPermissions struct {
	Driver  string          `json:"driver"`
	Version string          `json:"version"`
	Items   permissions.Set `json:"items"`
}

// LinkedResult is a task that an action started through a primitive, as its
// hook's task result includes it.
type LinkedResult struct {
	ID     int64               `json:"id"`
	Kind   string              `json:"kind"`
	Status executor.TaskStatus `json:"status"`
	Result json.RawMessage     `json:"result,omitempty"`
}
