package executor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/executor"
)

// TestStatusesAreTheSchemas: the task and step statuses the executor names
// are exactly those that the CHECK constraints of tasks.status and
// steps.status allow (the SQL of queries/ writes some of them as literals).
func TestStatusesAreTheSchemas(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	require.ElementsMatch(t, []executor.TaskStatus{executor.TaskQueued, executor.TaskRunning, executor.TaskSucceeded,
		executor.TaskFailed, executor.TaskCanceled}, dbtest.CheckedValues[executor.TaskStatus](t, pool, "tasks", "status"))
	require.ElementsMatch(t, []executor.StepStatus{executor.StepRunning, executor.StepSucceeded, executor.StepFailed,
		executor.StepWarning, executor.StepCanceled}, dbtest.CheckedValues[executor.StepStatus](t, pool, "steps", "status"))
}
