package executor_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
)

// A task runs once at a time: its run holds a lease that every write of the
// run checks, stops itself when it cannot renew it, and no process recovers a
// task it still runs (issue 31).

// blockingRun is a runner whose run says when it started, then waits until
// released or stopped; what stopped it is kept.
type blockingRun struct {
	started, release chan struct{}
	stoppedBy        atomic.Value // error: the cause of the run's context, once it ended
	recovered        atomic.Int32
}

func newBlockingRun() *blockingRun {
	return &blockingRun{started: make(chan struct{}), release: make(chan struct{})}
}

func (r *blockingRun) runner() runnerFunc {
	return runnerFunc{
		run: func(ctx context.Context, run *executor.Run) (any, error) {
			close(r.started)
			select {
			case <-r.release:
				return "done", nil
			case <-ctx.Done():
				r.stoppedBy.Store(context.Cause(ctx))
				return nil, ctx.Err()
			}
		},
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			r.recovered.Add(1)
			return false, "Nothing was changed.", nil
		},
	}
}

// staleHeartbeat makes task id's heartbeat look as a run's that stopped an hour ago.
func (b bundle) staleHeartbeat(t *testing.T, id int64) {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), `UPDATE tasks SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`, id)
	require.NoError(t, err)
}

func TestAProcessNeverRecoversATaskItStillRuns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	r := newBlockingRun()
	e := b.start(t, map[string]executor.Runner{"upgrade": r.runner()}, fast)
	id := b.enqueue(t, e, b.deployment(t, "db"), "upgrade", nil, nil)
	<-r.started
	// As after a database outage longer than StaleAfter: the run is alive,
	// its heartbeat old.
	b.staleHeartbeat(t, id)
	require.NoError(t, e.RecoverStaleTasks(ctx))

	require.Zero(t, r.recovered.Load(), "the process that runs the task does not recover it")
	executortest.Wait(t, func(ctx context.Context) (db.Task, error) { return b.q.GetTask(ctx, id) },
		func(task db.Task) bool { return time.Since(*task.HeartbeatAt) < time.Minute })
	close(r.release)
	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskSucceeded, task.Status, task.Message)
	require.Zero(t, r.recovered.Load())
}

func TestARunTakenOverByAnotherProcessRecordsNothingMore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	lateStep := make(chan error, 1)
	proceed := make(chan struct{})
	stale := executor.Options{HeartbeatEvery: time.Hour, StaleAfter: time.Second} // this process never renews its heartbeat
	live := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		<-proceed
		err := run.Step(ctx, "helm", "Helm upgrade", func(context.Context, *executor.Step) error { return nil })
		lateStep <- err
		return "upgraded", err
	}}
	e := b.start(t, map[string]executor.Runner{"upgrade": live}, stale)
	id := b.enqueue(t, e, b.deployment(t, "db"), "upgrade", nil, nil)
	executortest.Wait(t, func(ctx context.Context) (db.Task, error) { return b.q.GetTask(ctx, id) },
		func(task db.Task) bool { return task.Status == executor.TaskRunning })
	b.staleHeartbeat(t, id)

	other, _ := b.worker(t, map[string]executor.Runner{"upgrade": runnerFunc{run: succeed}}, fast)
	require.NoError(t, other.RecoverStaleTasks(ctx))
	close(proceed)

	require.ErrorIs(t, <-lateStep, executor.ErrLeaseLost, "the stale run's writes are refused")
	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Equal(t, "The Styrmin process running this task stopped (crash, kill or restart). Nothing was changed.", task.Message,
		"the task ends as the process that took it over recorded it")
	steps, err := b.q.ListSteps(ctx, id)
	require.NoError(t, err)
	require.Empty(t, steps, "nothing the stale run did after it lost the task is recorded")
}

// outageOptions are fast options for tests that stop the database: a run
// stops itself 2 s into an outage, and a task is taken over 3 s after its
// last heartbeat.
var outageOptions = executor.Options{HeartbeatEvery: 100 * time.Millisecond, StaleAfter: 3 * time.Second, WaitRetry: 2 * time.Second}

func TestARunThatCannotRenewItsHeartbeatStopsBeforeAnyoneRecoversIt(t *testing.T) {
	t.Parallel()
	s := dbtest.NewStoppable(t)
	b := setupOn(t, s.Pool)
	r := newBlockingRun()
	runner := r.runner()
	recoverAfterStop := runner.recover
	runner.recover = func(ctx context.Context, run *executor.Run) (bool, string, error) {
		if r.stoppedBy.Load() == nil {
			return false, "", errors.New("recovering while the run still runs")
		}
		return recoverAfterStop(ctx, run)
	}
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, outageOptions)
	id := b.enqueue(t, e, b.deployment(t, "db"), "upgrade", nil, nil)
	<-r.started

	s.Stop(t)
	require.Eventually(t, func() bool { return r.stoppedBy.Load() != nil }, outageOptions.StaleAfter, 50*time.Millisecond,
		"the run stops before its task counts as stale")
	require.ErrorContains(t, r.stoppedBy.Load().(error), "heartbeat could not be renewed")
	time.Sleep(outageOptions.StaleAfter) // an outage longer than StaleAfter
	s.Start(t)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Equal(t, "The Styrmin process running this task stopped (crash, kill or restart). Nothing was changed.", task.Message)
	require.EqualValues(t, 1, r.recovered.Load())
	b.jobCompleted(t, id)
}

// Issue 31, item 4: a Helm change that succeeded while the database was away
// is recorded as succeeded once it is back, step and task.
func TestATaskThatEndsDuringADatabaseOutageIsRecordedWhenItIsBack(t *testing.T) {
	t.Parallel()
	s := dbtest.NewStoppable(t)
	b := setupOn(t, s.Pool)
	inStep, stepDone := make(chan struct{}), make(chan struct{})
	var recovered atomic.Int32
	runner := runnerFunc{
		run: func(ctx context.Context, run *executor.Run) (any, error) {
			err := run.Step(ctx, "helm", "Helm upgrade", func(context.Context, *executor.Step) error {
				close(inStep)
				<-stepDone
				return nil
			})
			return map[string]int{"revision": 2}, err
		},
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			recovered.Add(1)
			return false, "Rolled back.", nil
		},
	}
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, outageOptions)
	id := b.enqueue(t, e, b.deployment(t, "db"), "upgrade", nil, nil)
	<-inStep

	s.Stop(t)
	close(stepDone) // Helm is done; the database is away
	time.Sleep(outageOptions.StaleAfter + time.Second)
	s.Start(t)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskSucceeded, task.Status, task.Message)
	require.JSONEq(t, `{"revision": 2}`, string(task.Result))
	steps, err := b.q.ListSteps(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, executor.StepSucceeded, steps[0].Status)
	require.Zero(t, recovered.Load(), "nothing was recovered")
	b.jobCompleted(t, id)
}

// jobCompleted waits until River recorded the job of task id completed, as
// it does once the database is back after an outage.
func (b bundle) jobCompleted(t *testing.T, id int64) {
	t.Helper()
	executortest.Wait(t, func(ctx context.Context) (string, error) {
		var state string
		err := b.pool.QueryRow(ctx, "SELECT j.state FROM river_job j JOIN tasks t ON t.river_job_id = j.id WHERE t.id = $1", id).Scan(&state)
		return state, err
	}, func(state string) bool { return state == "completed" })
}
