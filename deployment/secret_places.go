package deployment

import (
	"fmt"
	"maps"
	"slices"

	"github.com/styrmin/styrmin/secrets"
)

// The places of the deployments' sealed values: each names its table, column
// and row, so that a value copied from one row, column or table to another
// does not open there. Version-1 values (Styrmin before key ids) were sealed
// with their deployment's id only; they open until `styrmin secrets rotate`
// re-seals them at their place.

// DeploymentSecretsAt is the place of the secret parameters of deployment id.
func DeploymentSecretsAt(id int64) secrets.Place {
	return secrets.At("deployments", "secrets", id).WithV1Label(v1Label(id))
}

// RevisionSecretsAt is the place of the secret parameters of a deployment's revision.
func RevisionSecretsAt(deploymentID int64, revision int32) secrets.Place {
	return secrets.At("revisions", "secrets", fmt.Sprintf("%d/%d", deploymentID, revision)).WithV1Label(v1Label(deploymentID))
}

// TaskSecretsAt is the place of the secret inputs of task taskID, a task of
// deployment deploymentID.
func TaskSecretsAt(taskID, deploymentID int64) secrets.Place {
	return secrets.At("tasks", "secret_inputs", taskID).WithV1Label(v1Label(deploymentID))
}

// reviewTokens is the place of upgrade reviews' tokens: in no table, the
// user who reviewed holds the token until they confirm the upgrade.
var reviewTokens = secrets.Place{Table: "upgrade reviews", Column: "token"}

// v1Label is what the version-1 values of deployment id were sealed with.
func v1Label(id int64) string { return fmt.Sprintf("deployment %d", id) }

// SecretNames are the names of the set secret values, sorted: what
// deployments.secret_names records, so that pages need not open the values.
func SecretNames(values map[string]string) []string {
	return slices.Sorted(maps.Keys(values))
}
