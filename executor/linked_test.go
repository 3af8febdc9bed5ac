package executor_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
)

// patient are options under which a task that has to wait for its
// deployment looks again only after the test is over: a task that runs
// during the test ran at once, when the deployment was handed to it.
var patient = executor.Options{HeartbeatEvery: 100 * time.Millisecond, StaleAfter: time.Second, WaitRetry: time.Hour}

// insertLinked commits a task of kind started by step of root (no job yet).
func (b bundle) insertLinked(t testing.TB, deployment int64, kind string, step, root int64) int64 {
	t.Helper()
	task, err := b.q.InsertTask(context.Background(), db.InsertTaskParams{DeploymentID: deployment, Kind: kind,
		Inputs: []byte("{}"), ParentStepID: &step, RootTaskID: &root, CreatedBy: "test"})
	require.NoError(t, err)
	return task.ID
}

// enqueueJob commits the job of a task inserted earlier.
func (b bundle) enqueueJob(t testing.TB, e *executor.Executor, id int64) {
	t.Helper()
	require.NoError(t, pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) error { return e.Enqueue(context.Background(), tx, id) }))
}

// waitLinked starts a linked task of kind from step s of run and waits for it
// to end, as the Python primitives do, for at most a minute (an action's timeout).
func (b bundle) waitLinked(ctx context.Context, t testing.TB, e *executor.Executor, run *executor.Run, s *executor.Step, kind string) error {
	root := executor.RootOf(run.Task)
	id := b.enqueue(t, e, run.Task.DeploymentID, kind, &s.ID, &root)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	task, err := executortest.Until(ctx, func(ctx context.Context) (db.Task, error) { return b.q.GetTask(ctx, id) }, executortest.RowEnded)
	if err != nil {
		return fmt.Errorf("linked %s: %w", kind, err)
	}
	if task.Status != executor.TaskSucceeded {
		return fmt.Errorf("linked %s ended %s: %s", kind, task.Status, task.Message)
	}
	return nil
}

// upgradeRunsAtOnce queues an upgrade of the deployment and checks that it
// runs (under patient options, a waiting task would not).
func (b bundle) upgradeRunsAtOnce(t *testing.T, e *executor.Executor, dep int64) db.Task {
	t.Helper()
	up := executortest.WaitRow(t, b.q, b.enqueue(t, e, dep, "upgrade", nil, nil))
	require.Equal(t, executor.TaskSucceeded, up.Status, up.Message)
	d, err := b.q.GetDeploymentByID(context.Background(), dep)
	require.NoError(t, err)
	require.Nil(t, d.HolderTaskID, "the deployment is free again")
	return up
}

func succeed(ctx context.Context, run *executor.Run) (any, error) {
	return run.Task.Kind + " done", nil
}

func TestParentCancelledWhileItsLinkedStopIsQueued(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var e *executor.Executor
	dep := b.deployment(t, "db")
	queued := make(chan int64, 1)
	var stopRuns atomic.Int32
	parent := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		return nil, run.Step(ctx, "hook", "Back up", func(ctx context.Context, s *executor.Step) error {
			// stop_components: the stop is committed; its job waits for a worker.
			queued <- b.insertLinked(t, dep, "stop", s.ID, run.Task.ID)
			<-ctx.Done()
			return errors.New("the action was stopped")
		})
	}}
	stop := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		stopRuns.Add(1)
		return "stopped", nil
	}}
	e = b.start(t, map[string]executor.Runner{"action": parent, "stop": stop, "upgrade": runnerFunc{run: succeed}}, patient)
	id := b.enqueue(t, e, dep, "action", nil, nil)
	linked := <-queued
	require.NoError(t, e.RequestCancel(context.Background(), id, "alice"))

	require.Equal(t, executor.TaskCanceled, executortest.WaitRow(t, b.q, id).Status)
	// The stop's job comes to a worker only now, after its parent ended.
	b.enqueueJob(t, e, linked)
	b.upgradeRunsAtOnce(t, e, dep)
	task := executortest.WaitRow(t, b.q, linked)
	require.Equal(t, executor.TaskCanceled, task.Status)
	require.Equal(t, "Cancelled before it started: the action that started it had ended.", task.Message)
	require.Zero(t, stopRuns.Load(), "the stop never ran")
}

func TestParentEndsWhileItsLinkedStartRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status executor.TaskStatus
		// end ends the parent's action once its linked start runs.
		end func(ctx context.Context, e *executor.Executor, parent int64) error
	}{
		{"parent timed out", executor.TaskFailed, func(context.Context, *executor.Executor, int64) error {
			// The action's process is killed at its timeout.
			return errors.New("Action migrate failed: it ran past its timeout of 1s.")
		}},
		{"parent cancelled", executor.TaskCanceled, func(ctx context.Context, e *executor.Executor, parent int64) error {
			if err := e.RequestCancel(context.Background(), parent, "alice"); err != nil {
				return err
			}
			<-ctx.Done()
			return errors.New("Action migrate failed: the action was cancelled")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			var e *executor.Executor
			dep := b.deployment(t, "db")
			started := make(chan int64, 1)
			parent := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
				return nil, run.Step(ctx, "hook", "Migrate", func(ctx context.Context, s *executor.Step) error {
					root := run.Task.ID
					b.enqueue(t, e, dep, "start", &s.ID, &root)
					<-started
					return tc.end(ctx, e, run.Task.ID)
				})
			}}
			start := runnerFunc{
				run: func(ctx context.Context, run *executor.Run) (any, error) {
					started <- run.Task.ID
					<-ctx.Done() // waits for components that never get ready
					return nil, ctx.Err()
				},
				recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
					return true, "Starting is safe to repeat.", nil
				},
			}
			e = b.start(t, map[string]executor.Runner{"action": parent, "start": start, "upgrade": runnerFunc{run: succeed}}, patient)
			id := b.enqueue(t, e, dep, "action", nil, nil)
			next := b.enqueue(t, e, dep, "upgrade", nil, nil) // waits for the action

			task := executortest.WaitRow(t, b.q, id)
			require.Equal(t, tc.status, task.Status, task.Message)
			up := executortest.WaitRow(t, b.q, next)
			require.Equal(t, executor.TaskSucceeded, up.Status, "the next upgrade ran at once")
			linked, err := b.q.ListNestedTasks(context.Background(), []int64{mustStep(t, b, id)})
			require.NoError(t, err)
			require.Len(t, linked, 1)
			require.Equal(t, executor.TaskCanceled, linked[0].Status, "cancelled, not run again although its runner could")
			require.Equal(t, "Cancelled by Styrmin, as the action that started it had ended, while it ran. Starting is safe to repeat.", linked[0].Message)
			require.False(t, linked[0].EndedAt.After(*task.EndedAt), "the start ended before its parent")
			require.False(t, up.StartedAt.Before(*linked[0].EndedAt), "the next upgrade never ran beside the start")
			b.upgradeRunsAtOnce(t, e, dep)
		})
	}
}

// mustStep is the id of the first step of a task.
func mustStep(t *testing.T, b bundle, task int64) int64 {
	t.Helper()
	steps, err := b.q.ListSteps(context.Background(), task)
	require.NoError(t, err)
	require.NotEmpty(t, steps)
	return steps[0].ID
}

func TestLinkedTasksRunWhileEveryWorkerWaitsForOne(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var e *executor.Executor
	// Each action waits for a linked upgrade, whose action waits in turn for
	// a linked stop: every level of nesting is busy waiting for the next.
	waits := func(kind string) runnerFunc {
		return runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
			return run.Task.Kind + " done", run.Step(ctx, "hook", "Wait for a "+kind, func(ctx context.Context, s *executor.Step) error {
				return b.waitLinked(ctx, t, e, run, s, kind)
			})
		}}
	}
	e = b.start(t, map[string]executor.Runner{"action": waits("upgrade"), "upgrade": waits("stop"), "stop": runnerFunc{run: succeed}},
		executor.Options{Workers: 1, HeartbeatEvery: 100 * time.Millisecond, StaleAfter: time.Second, WaitRetry: time.Hour})
	var deps, parents []int64
	for i := range 3 { // more parents than workers
		dep := b.deployment(t, fmt.Sprintf("db%d", i))
		deps = append(deps, dep)
		parents = append(parents, b.enqueue(t, e, dep, "action", nil, nil))
	}
	for i, id := range parents {
		task := executortest.WaitRow(t, b.q, id)
		require.Equal(t, executor.TaskSucceeded, task.Status, task.Message)
		b.upgradeRunsAtOnce(t, e, deps[i])
	}
}

func TestLinkedTaskOfAnEndedActionIsCancelledNotRun(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dep := b.deployment(t, "db")
	steps := make(chan int64, 1)
	parent := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		return nil, run.Step(ctx, "hook", "Back up", func(ctx context.Context, s *executor.Step) error {
			steps <- s.ID
			return nil
		})
	}}
	var stopRuns atomic.Int32
	stop := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		stopRuns.Add(1)
		return nil, nil
	}}
	e := b.start(t, map[string]executor.Runner{"action": parent, "stop": stop, "upgrade": runnerFunc{run: succeed}}, patient)
	id := b.enqueue(t, e, dep, "action", nil, nil)
	step := <-steps
	require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, id).Status)

	// A stop_components call that was under way when the action ended.
	root := id
	linked := b.enqueue(t, e, dep, "stop", &step, &root)
	task := executortest.WaitRow(t, b.q, linked)
	require.Equal(t, executor.TaskCanceled, task.Status)
	require.Equal(t, fmt.Sprintf("Cancelled before it started: task %d, under which it was to run, is no longer running (succeeded).", id), task.Message)
	require.Zero(t, stopRuns.Load())
	b.upgradeRunsAtOnce(t, e, dep)
}

func TestTasksNestDeeperThanTheLimitAreRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e, err := executor.New(b.pool, executor.Options{})
	require.NoError(t, err)
	dep := b.deployment(t, "db")
	ctx := context.Background()
	parent := b.enqueue(t, e, dep, "action", nil, nil)
	root := parent
	for depth := 1; ; depth++ {
		var step int64
		require.NoError(t, b.pool.QueryRow(ctx, `INSERT INTO steps (task_id, position, kind, title) VALUES ($1, 1, 'hook', 'Act') RETURNING id`, parent).Scan(&step))
		err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
			task, err := b.q.WithTx(tx).InsertTask(ctx, db.InsertTaskParams{DeploymentID: dep, Kind: "action", Inputs: []byte("{}"),
				ParentStepID: &step, RootTaskID: &root, CreatedBy: "test"})
			if err != nil {
				return err
			}
			parent = task.ID
			return e.Enqueue(ctx, tx, task.ID)
		})
		if depth <= executor.MaxLinkDepth {
			require.NoError(t, err, "depth %d", depth)
			continue
		}
		require.ErrorIs(t, err, executor.ErrTooDeep)
		return
	}
}

func TestTaskOfADeadProcessEndsItsLinkedTasksBeforeItRecovers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dep := b.deployment(t, "db")
	id := b.crashedTask(t, dep, "action")
	var linked int64
	parent := runnerFunc{
		run: succeed,
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			task, err := b.q.GetTask(ctx, linked)
			if err != nil || task.EndedAt == nil {
				return false, "", fmt.Errorf("recovering while the start its action started has not ended (%v)", err)
			}
			return false, "Nothing to undo.", nil
		},
	}
	start := runnerFunc{
		run: func(ctx context.Context, run *executor.Run) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			return false, "Nothing was started.", nil
		},
	}
	e, err := executor.New(b.pool, executor.Options{})
	require.NoError(t, err)
	// start_components, called by the action before its process died.
	root, step := id, mustStep(t, b, id)
	linked = b.enqueue(t, e, dep, "start", &step, &root)
	e = b.start(t, map[string]executor.Runner{"action": parent, "start": start, "upgrade": runnerFunc{run: succeed}}, patient)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Equal(t, "The Styrmin process running this task stopped (crash, kill or restart). Nothing to undo.", task.Message)
	require.Equal(t, executor.TaskCanceled, executortest.WaitRow(t, b.q, linked).Status)
	b.upgradeRunsAtOnce(t, e, dep)
}
