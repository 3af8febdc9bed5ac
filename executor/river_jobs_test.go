package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/executor"
)

// TestRiverJobsCountsQueuedTasksByStateAndQueue: two tasks queued where no
// worker runs are two available River jobs of the default queue; every
// state and every queue of the executor is counted, at 0 when empty.
func TestRiverJobsCountsQueuedTasksByStateAndQueue(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e, err := executor.New(b.pool, executor.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	empty, err := e.RiverJobs(ctx)
	require.NoError(t, err)
	require.Zero(t, empty.ByState["available"])

	b.enqueue(t, e, b.deployment(t, "shop"), "upgrade", nil, nil)
	b.enqueue(t, e, b.deployment(t, "blog"), "install", nil, nil)
	jobs, err := e.RiverJobs(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, jobs.ByState["available"])
	for _, state := range []string{"running", "completed", "retryable", "discarded", "cancelled", "scheduled", "pending"} {
		n, ok := jobs.ByState[state]
		require.True(t, ok, "state %s is counted", state)
		require.Zero(t, n, "state %s", state)
	}
	require.Equal(t, []executor.RiverQueue{
		{Name: "default", Available: 2},
		{Name: "linked_1"},
		{Name: "linked_2"},
	}, jobs.Queues)
}
