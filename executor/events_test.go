package executor_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
)

// recorder is an Events that records, in the task's transaction, what it
// heard (into the settings table, so that only committed changes count),
// and fails for the statuses in fail after writing.
type recorder struct {
	mu   sync.Mutex
	fail map[executor.TaskStatus]bool
}

func (r *recorder) TaskChanged(ctx context.Context, tx pgx.Tx, _ executor.JobInserter, task db.Task) error {
	if _, err := tx.Exec(ctx, "INSERT INTO settings (name, value) VALUES ($1, '')", fmt.Sprintf("heard-%d-%s", task.ID, task.Status)); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail[task.Status] {
		return errors.New("the listener broke")
	}
	return nil
}

// heard lists what the recorder heard of task id and was committed.
func (b bundle) heard(t *testing.T, id int64) []string {
	t.Helper()
	rows, err := b.pool.Query(context.Background(), "SELECT name FROM settings WHERE name LIKE $1 ORDER BY name", fmt.Sprintf("heard-%d-%%", id))
	require.NoError(t, err)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return names
}

func TestEventsHearOfEveryTaskThatStartsOrEndsInItsTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t)
	opts := fast
	opts.Events = &recorder{}
	ok := runnerFunc{run: func(context.Context, *executor.Run) (any, error) { return nil, nil }}
	e := b.start(t, map[string]executor.Runner{"install": ok}, opts)
	id := b.enqueue(t, e, b.deployment(t, "web"), "install", nil, nil)

	executortest.WaitRow(t, b.q, id)

	require.Equal(t, []string{fmt.Sprintf("heard-%d-running", id), fmt.Sprintf("heard-%d-succeeded", id)}, b.heard(t, id))
}

func TestACancelledQueuedTaskIsHeardOf(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e, err := executor.New(b.pool, executor.Options{Events: &recorder{}})
	require.NoError(t, err)
	id := b.enqueue(t, e, b.deployment(t, "web"), "install", nil, nil)

	require.NoError(t, e.CancelQueued(context.Background(), id, "Cancelled by alice."))

	require.Equal(t, []string{fmt.Sprintf("heard-%d-canceled", id)}, b.heard(t, id))
}

func TestAFailingEventsListenerKeepsNoTaskFromStartingOrEnding(t *testing.T) {
	t.Parallel()
	b := setup(t)
	opts := fast
	opts.Events = &recorder{fail: map[executor.TaskStatus]bool{executor.TaskRunning: true, executor.TaskSucceeded: true}}
	ok := runnerFunc{run: func(context.Context, *executor.Run) (any, error) { return nil, nil }}
	e := b.start(t, map[string]executor.Runner{"install": ok}, opts)
	id := b.enqueue(t, e, b.deployment(t, "web"), "install", nil, nil)

	task := executortest.WaitRow(t, b.q, id)

	require.Equal(t, executor.TaskSucceeded, task.Status)
	require.Empty(t, b.heard(t, id), "what the listener did before it failed is undone")
}
