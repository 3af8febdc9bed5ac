package executor

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/styrmin/styrmin/db"
)

// taskWorker is the River worker of task jobs.
type taskWorker struct {
	river.WorkerDefaults[taskArgs]
	e *Executor
}

// Work runs the job's task when its deployment is free, or sleeps until it is.
func (w *taskWorker) Work(ctx context.Context, job *river.Job[taskArgs]) error {
	task, wait, err := w.e.claim(ctx, job.ID, job.Args.TaskID)
	if err != nil {
		return err
	}
	if wait {
		return river.JobSnooze(w.e.opts.WaitRetry)
	}
	if task != nil {
		w.e.execute(ctx, *task)
	}
	return nil
}

// claim takes the task's deployment and marks the task running. It returns
// wait when another task holds the deployment or comes first, and no task when
// there is nothing to run (the task ended, was cancelled, or was queued again
// under another job). A nested task whose action or task chain has ended is
// cancelled instead: it never holds the deployment for a chain that ended.
func (e *Executor) claim(ctx context.Context, jobID, taskID int64) (task *db.Task, wait bool, err error) {
	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		q := e.queries.WithTx(tx)
		t, err := q.LockTask(ctx, taskID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if t.Status != TaskQueued || t.RiverJobID == nil || *t.RiverJobID != jobID {
			return nil
		}
		if t.ParentStepID != nil {
			why, err := orphaned(ctx, q, t)
			if err != nil {
				return err
			}
			if why != "" {
				cancelled, err := q.CancelQueuedTask(ctx, db.CancelQueuedTaskParams{ID: t.ID, Message: why})
				if err == nil {
					e.taskChanged(ctx, tx, cancelled)
				}
				return err
			}
		}
		_, err = q.HoldDeployment(ctx, db.HoldDeploymentParams{
			RootTaskID:   RootOf(t),
			DeploymentID: t.DeploymentID,
			Nested:       t.ParentStepID != nil,
			TaskID:       t.ID,
		})
		if errors.Is(err, pgx.ErrNoRows) {
			wait = true
			return nil
		}
		if err != nil {
			return err
		}
		started, err := q.StartTask(ctx, db.StartTaskParams{ID: t.ID, Runner: e.opts.Name})
		if err != nil {
			return err
		}
		e.taskChanged(ctx, tx, started)
		task = &started
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("executor: claim task %d: %w", taskID, err)
	}
	if task != nil && e.opts.Observer != nil {
		e.opts.Observer.TaskStarted(task.Kind)
	}
	return task, wait, nil
}

// RootOf is the top-level task of t's chain (t itself for a top-level task).
func RootOf(t db.Task) int64 {
	if t.RootTaskID != nil {
		return *t.RootTaskID
	}
	return t.ID
}

// errTakenOver ends a run whose heartbeat another process found stale.
var errTakenOver = errors.New("executor: another process took the task over")

// cancelRequest ends a run that a user asked to cancel.
type cancelRequest struct{ by string }

// Error says who cancelled.
func (c *cancelRequest) Error() string { return "cancelled by " + c.by }

// execute runs a claimed task to its end and records how it ended.
func (e *Executor) execute(ctx context.Context, task db.Task) {
	runner, ok := e.runners[task.Kind]
	if !ok {
		e.finish(&Run{Task: task}, TaskFailed, nil, fmt.Sprintf("This Styrmin process cannot run %s tasks; run a worker of the same version.", task.Kind))
		return
	}
	run, err := e.newRun(ctx, task)
	if err != nil {
		e.finish(run, TaskFailed, nil, err.Error())
		return
	}
	var result any
	err = e.withHeartbeat(ctx, task, stopOnCancel, func(ctx context.Context) (err error) {
		defer func() {
			if p := recover(); p != nil {
				e.log.Error("executor: task panicked", "task", task.ID, "panic", p, "stack", string(debug.Stack()))
				err = errors.New("Styrmin hit an internal error while running this task; the server log has the details")
			}
		}()
		result, err = runner.Run(ctx, run)
		return err
	})
	var cancelled *cancelRequest
	switch {
	case errors.Is(err, errTakenOver):
		e.log.Warn("executor: task taken over by another process", "task", task.ID)
	case errors.As(err, &cancelled):
		e.recoverTask(context.WithoutCancel(ctx), task, fmt.Sprintf("Cancelled by %s while it ran.", cancelled.by), TaskCanceled)
	case ctx.Err() != nil:
		// Shutdown after the drain time: recover now rather than leave the
		// task for another process to find stale.
		e.recoverTask(context.WithoutCancel(ctx), task, "Styrmin was shut down while this task ran.", TaskFailed)
	case err != nil:
		e.finish(run, TaskFailed, result, err.Error())
	default:
		e.finish(run, TaskSucceeded, result, "")
	}
}

// newRun returns the run of task, concealing the secrets that the worker's
// SecretsOf gives for it. When they cannot be read, the run conceals the
// common forms of secrets only and the error says why the task cannot run.
func (e *Executor) newRun(ctx context.Context, task db.Task) (*Run, error) {
	run := &Run{Task: task, e: e}
	if e.secretsOf == nil {
		return run, nil
	}
	secrets, err := e.secretsOf(ctx, task)
	if err != nil {
		e.log.Error("executor: read the secrets of a task", "task", task.ID, "error", err)
		return run, errors.New("Styrmin could not read this deployment's secrets, which it hides in what the task records; the server log has the details")
	}
	run.Conceal(secrets...)
	return run, nil
}

// cancelMode says whether a user's request to cancel a task stops what runs
// under its heartbeat: it stops the task's run, never its recovery, which
// makes the deployment consistent whatever the user asked (a cancelled run
// is recovered, under the very request that cancelled it).
type cancelMode bool

const (
	stopOnCancel cancelMode = true
	ignoreCancel cancelMode = false
)

// withHeartbeat runs fn while renewing the task's heartbeat, until fn
// returns. fn's context is cancelled with errTakenOver when the heartbeat
// finds the task owned by another process, and, in stopOnCancel mode, with a
// *cancelRequest when a user asked to cancel it; the heartbeat goes on while
// fn winds down (it may wait for the tasks its actions started).
func (e *Executor) withHeartbeat(ctx context.Context, task db.Task, mode cancelMode, fn func(ctx context.Context) error) error {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	beatCtx, stopBeat := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.beat(beatCtx, task, mode, cancel)
	}()
	err := fn(runCtx)
	stopBeat()
	<-done
	var cancelled *cancelRequest
	if cause := context.Cause(runCtx); errors.Is(cause, errTakenOver) || errors.As(cause, &cancelled) {
		err = cause
	}
	return err
}

// beat renews the task's heartbeat every HeartbeatEvery until ctx ends, and
// stops the run (stop) when the task was taken over or, in stopOnCancel
// mode, a user cancelled it.
func (e *Executor) beat(ctx context.Context, task db.Task, mode cancelMode, stop context.CancelCauseFunc) {
	tick := time.NewTicker(e.opts.HeartbeatEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		by, err := e.queries.BeatTask(ctx, db.BeatTaskParams{ID: task.ID, Runner: e.opts.Name})
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			stop(errTakenOver)
			return
		case err != nil:
			if ctx.Err() == nil {
				e.log.Warn("executor: heartbeat", "task", task.ID, "error", err)
			}
		case by.Valid && mode == stopOnCancel:
			stop(&cancelRequest{by: by.String}) // the first cause stays
		}
	}
}

// finish records how a task ended, cancels what its actions started and has
// not ended yet (they were stopped already unless the run broke off), and,
// once no task of its chain runs any more and its top-level task has ended,
// frees the deployment and wakes the deployment's next task.
//
// The next task is looked for after the release has committed: a task
// committed while the release was not yet visible found the deployment held
// and waits for WaitRetry, and only a look taken after the commit is sure to
// see it.
func (e *Executor) finish(run *Run, status TaskStatus, result any, message string) {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.StaleAfter)
	defer cancel()
	task := run.Task
	message, resultJSON, err := run.recordable(message, result)
	if err != nil {
		e.log.Error("executor: task result is not JSON", "task", task.ID, "error", err)
		resultJSON = []byte("null")
	}
	var freed int64
	var recorded bool
	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		q := e.queries.WithTx(tx)
		ended, err := q.FinishTask(ctx, db.FinishTaskParams{ID: task.ID, Runner: e.opts.Name, Status: status, Result: resultJSON, Message: message})
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // another process took the task over
		}
		if err != nil {
			return err
		}
		recorded = true
		e.taskChanged(ctx, tx, ended)
		if err := q.EndRunningSteps(ctx, db.EndRunningStepsParams{TaskID: task.ID, Status: StepCanceled, Message: "The task ended before this step did."}); err != nil {
			return err
		}
		if _, err := e.stopLinked(ctx, tx, task.ID, 0); err != nil {
			return err
		}
		freed, err = q.ReleaseDeployment(ctx, db.ReleaseDeploymentParams{DeploymentID: task.DeploymentID, RootTaskID: RootOf(task)})
		return err
	})
	if err != nil {
		// The heartbeat stops with this run: another process will recover the task.
		e.log.Error("executor: record the end of a task", "task", task.ID, "status", status, "error", err)
		return
	}
	if recorded {
		e.observeEnd(task, status)
	}
	if freed == 0 {
		return
	}
	if err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return e.handOver(ctx, tx, task.DeploymentID) }); err != nil {
		// The next task starts at its own retry (WaitRetry) instead.
		e.log.Warn("executor: hand the deployment over", "task", task.ID, "deployment", task.DeploymentID, "error", err)
	}
}

// observeEnd tells the observer, if any, that task ended with status; its
// run time counts from its start (from its creation if it never started).
func (e *Executor) observeEnd(task db.Task, status TaskStatus) {
	if e.opts.Observer == nil {
		return
	}
	start := task.CreatedAt
	if task.StartedAt != nil {
		start = *task.StartedAt
	}
	e.opts.Observer.TaskEnded(task.Kind, string(status), time.Since(start))
}
