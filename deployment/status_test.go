package deployment_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/deployment"
)

// TestStatusesAreTheSchemas: the deployment statuses that deployment names
// are exactly those that the CHECK constraint of deployments.status allows
// (the SQL of queries/ writes some of them as literals).
func TestStatusesAreTheSchemas(t *testing.T) {
	t.Parallel()
	require.ElementsMatch(t, []deployment.Status{deployment.StatusPending, deployment.StatusDeployed, deployment.StatusFailed,
		deployment.StatusDeleting, deployment.StatusDeleted}, dbtest.CheckedValues[deployment.Status](t, dbtest.New(t), "deployments", "status"))
}

// TestTaskKindsAreTheSchemas: TaskKinds are exactly the kinds that the
// CHECK constraint of tasks.kind allows (webhooks filter tasks by them).
func TestTaskKindsAreTheSchemas(t *testing.T) {
	t.Parallel()
	require.ElementsMatch(t, deployment.TaskKinds(), dbtest.CheckedValues[string](t, dbtest.New(t), "tasks", "kind"))
}
