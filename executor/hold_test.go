package executor_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
)

// The hold invariant: whenever a task ends, by whatever path, its deployment
// is freed or handed to its next task. These are the paths that once left
// a deployment held for ever (issue 31).

// An action's stop_components runs on the only worker when it is killed. The
// action's task is recovered first and ends; the stop, recovered next, would
// run again, but its chain has ended.
func TestALinkedTaskRecoveredAfterItsChainEndedFreesTheDeployment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dep := b.deployment(t, "db")
	action := b.crashedTask(t, dep, "action")
	stop := b.insertLinked(t, dep, "stop", mustStep(t, b, action), action)
	b.diedRunning(t, stop)
	var stopRuns atomic.Int32
	runners := map[string]executor.Runner{
		"action": runnerFunc{run: succeed},
		"stop": runnerFunc{
			run: func(ctx context.Context, run *executor.Run) (any, error) {
				stopRuns.Add(1)
				return succeed(ctx, run)
			},
			recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
				return true, "Scaling is safe to repeat: running it again.", nil
			},
		},
		"upgrade": runnerFunc{run: succeed},
	}
	e := b.start(t, runners, patient)

	require.Equal(t, executor.TaskFailed, executortest.WaitRow(t, b.q, action).Status)
	require.Equal(t, executor.TaskCanceled, executortest.WaitRow(t, b.q, stop).Status, "its chain had ended: it does not run again")
	require.Zero(t, stopRuns.Load())
	b.upgradeRunsAtOnce(t, e, dep)
}

// A top-level task recovered after a crash waits in the queue again, still
// holding its deployment, when a user cancels it.
func TestCancellingARecoveredTaskBeforeItRunsAgainFreesTheDeployment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	dep := b.deployment(t, "db")
	id := b.crashedTask(t, dep, "stop")
	runners := map[string]executor.Runner{
		"stop": runnerFunc{run: succeed, recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			return true, "Scaling is safe to repeat: running it again.", nil
		}},
		"upgrade": runnerFunc{run: succeed},
	}
	e, w := b.worker(t, runners, patient)
	require.NoError(t, e.RecoverStaleTasks(ctx)) // the worker is not started: the task waits
	task, err := b.q.GetTask(ctx, id)
	require.NoError(t, err)
	require.Equal(t, executor.TaskQueued, task.Status, "queued again to run from the start")

	require.NoError(t, e.CancelQueued(ctx, id, "Cancelled by alice before it started."))
	d, err := b.q.GetDeploymentByID(ctx, dep)
	require.NoError(t, err)
	require.Nil(t, d.HolderTaskID, "the cancelled task holds its deployment no more")
	startWorker(t, w)
	b.upgradeRunsAtOnce(t, e, dep)
}

// A run that ends without a result (cancelled, or its process died) keeps
// the one its recovery kept: the tasks its actions started, say.
func TestATaskEndedByItsRecoveryKeepsTheResultTheRecoveryKept(t *testing.T) {
	t.Parallel()
	keep := func(ctx context.Context, run *executor.Run) (bool, string, error) {
		run.KeepResult(map[string][]int{"linked": {7}})
		return false, "Nothing to undo.", nil
	}
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		running := make(chan struct{})
		runner := runnerFunc{
			run: func(ctx context.Context, run *executor.Run) (any, error) {
				close(running)
				<-ctx.Done()
				return nil, errors.New("the action was stopped")
			},
			recover: keep,
		}
		e := b.start(t, map[string]executor.Runner{"action": runner}, fast)
		id := b.enqueue(t, e, b.deployment(t, "db"), "action", nil, nil)
		<-running
		require.NoError(t, e.RequestCancel(context.Background(), id, "alice"))
		task := executortest.WaitRow(t, b.q, id)
		require.Equal(t, executor.TaskCanceled, task.Status)
		require.JSONEq(t, `{"linked": [7]}`, string(task.Result))
	})
	t.Run("its process died", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		id := b.crashedTask(t, b.deployment(t, "db"), "action")
		b.start(t, map[string]executor.Runner{"action": runnerFunc{run: succeed, recover: keep}}, fast)
		task := executortest.WaitRow(t, b.q, id)
		require.Equal(t, executor.TaskFailed, task.Status)
		require.JSONEq(t, `{"linked": [7]}`, string(task.Result))
	})
}
