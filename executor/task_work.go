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
				if err != nil {
					return err
				}
				return e.ended(ctx, tx, cancelled)
			}
		}
		if err := q.LockDeployment(ctx, t.DeploymentID); err != nil {
			return err
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

// cancelRequest ends a run that a user asked to cancel.
type cancelRequest struct{ by string }

// Error says who cancelled.
func (c *cancelRequest) Error() string { return "cancelled by " + c.by }

// execute runs a claimed task to its end and records how it ended.
func (e *Executor) execute(ctx context.Context, task db.Task) {
	defer e.running.add(task.ID)()
	// The end is recorded however long the database takes to answer: only
	// the process's exit stops it trying.
	endCtx := context.WithoutCancel(ctx)
	runner, ok := e.runners[task.Kind]
	if !ok {
		e.finish(endCtx, &Run{Task: task, e: e}, TaskFailed, nil, fmt.Sprintf("This Styrmin process cannot run %s tasks; run a worker of the same version.", task.Kind))
		return
	}
	run, err := e.newRun(ctx, task)
	if err != nil {
		e.finish(endCtx, run, TaskFailed, nil, err.Error())
		return
	}
	var result any
	var runErr error
	// err is what stopped the run (see withHeartbeat), nil when it ran to its end.
	err = e.withHeartbeat(ctx, task, stopOnCancel, func(ctx context.Context) error {
		defer func() {
			if p := recover(); p != nil {
				e.log.Error("executor: task panicked", "task", task.ID, "panic", p, "stack", string(debug.Stack()))
				runErr = errors.New("Styrmin hit an internal error while running this task; the server log has the details")
			}
		}()
		result, runErr = runner.Run(ctx, run)
		return nil
	})
	var cancelled *cancelRequest
	switch {
	case errors.Is(err, ErrLeaseLost):
		e.log.Warn("executor: task taken over by another process", "task", task.ID)
	case errors.Is(err, errLeaseExpired) && runErr != nil:
		// A run that succeeded all the same is recorded below (its end is
		// fenced): its work was done.
		e.log.Error("executor: task stopped: the database did not answer its heartbeat in time; it is recovered once the database answers", "task", task.ID)
	case errors.As(err, &cancelled):
		e.recoverTask(endCtx, task, fmt.Sprintf("Cancelled by %s while it ran.", cancelled.by), TaskCanceled)
	case ctx.Err() != nil:
		// Shutdown after the drain time: recover now rather than leave the
		// task for another process to find stale.
		e.recoverTask(endCtx, task, "Styrmin was shut down while this task ran.", TaskFailed)
	case runErr != nil:
		e.finish(endCtx, run, TaskFailed, result, runErr.Error())
	default:
		e.finish(endCtx, run, TaskSucceeded, result, "")
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
// returns. fn's context is cancelled with ErrLeaseLost when the heartbeat
// finds the task taken over by another process, with errLeaseExpired when it
// could not be renewed for the lease time, and, in stopOnCancel mode, with a
// *cancelRequest when a user asked to cancel the task; the heartbeat goes on
// while fn winds down (it may wait for the tasks its actions started).
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
	if cause := context.Cause(runCtx); errors.Is(cause, ErrLeaseLost) || errors.Is(cause, errLeaseExpired) || errors.As(cause, &cancelled) {
		err = cause
	}
	return err
}

// beat renews the task's heartbeat every HeartbeatEvery until ctx ends, and
// stops the run (stop) when its lease is lost or expired or, in stopOnCancel
// mode, a user cancelled it. The lease counts from the last renewal sent
// that the database answered (the claim or take-over to start with).
func (e *Executor) beat(ctx context.Context, task db.Task, mode cancelMode, stop context.CancelCauseFunc) {
	tick := time.NewTicker(e.opts.HeartbeatEvery)
	defer tick.Stop()
	renewed := time.Now()
	var warned time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sent := time.Now()
		tryCtx, cancel := context.WithTimeout(ctx, e.opts.HeartbeatEvery)
		by, err := e.queries.BeatTask(tryCtx, db.BeatTaskParams{ID: task.ID, Lease: task.Lease})
		cancel()
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			stop(ErrLeaseLost)
			return
		case err != nil && ctx.Err() != nil:
			return
		case err != nil && time.Since(renewed) >= e.opts.leaseTime():
			stop(errLeaseExpired)
			return
		case err != nil:
			if renewed.After(warned) { // once per outage
				warned = renewed
				e.log.Warn("executor: heartbeat", "task", task.ID, "error", err)
			}
		default:
			renewed = sent
			if by.Valid && mode == stopOnCancel {
				stop(&cancelRequest{by: by.String}) // the first cause stays
			}
		}
	}
}

// finish records how a task ended, cancels what its actions started and has
// not ended yet (they were stopped already unless the run broke off), and
// settles its deployment. It tries until the database answers or ctx ends,
// and records nothing once another process took the task over.
func (e *Executor) finish(ctx context.Context, run *Run, status TaskStatus, result any, message string) {
	task := run.Task
	message, resultJSON, err := run.recordable(message, run.resultOr(result))
	if err != nil {
		e.log.Error("executor: task result is not JSON", "task", task.ID, "error", err)
		resultJSON = []byte("null")
	}
	err = run.writeTx(ctx, "record the end of a task", func(ctx context.Context, tx pgx.Tx) error {
		q := e.queries.WithTx(tx)
		ended, err := q.FinishTask(ctx, db.FinishTaskParams{ID: task.ID, Status: status, Result: resultJSON, Message: message})
		if err != nil {
			return err
		}
		if err := q.EndRunningSteps(ctx, db.EndRunningStepsParams{TaskID: task.ID, Status: StepCanceled, Message: "The task ended before this step did."}); err != nil {
			return err
		}
		if _, err := e.stopLinked(ctx, tx, task.ID, 0); err != nil {
			return err
		}
		return e.ended(ctx, tx, ended)
	})
	switch {
	case errors.Is(err, ErrLeaseLost):
		e.log.Warn("executor: task taken over by another process before its end was recorded", "task", task.ID, "status", status)
	case err != nil:
		// The heartbeat has stopped: another process will recover the task.
		e.log.Error("executor: record the end of a task", "task", task.ID, "status", status, "error", err)
	default:
		e.observeEnd(task, status)
	}
}

// ended tells Events that task's row, changed in tx, ended, and settles its
// deployment.
func (e *Executor) ended(ctx context.Context, tx pgx.Tx, task db.Task) error {
	e.taskChanged(ctx, tx, task)
	return e.settle(ctx, tx, task)
}

// settle keeps the hold invariant (see the package's doc) for task, whose
// row tx has just changed: it ended, or left the running state to be queued
// again. The deployment is freed when the chain's root has ended and no task
// of the chain runs any more; a deployment freed here, or one that a task
// cancelled before it started may have kept from its next task, is handed to
// that next task, in tx. It holds the deployment's row lock until tx
// commits, as claims do (LockDeployment), so that a task a claim found the
// deployment held for is visible to the hand-over.
func (e *Executor) settle(ctx context.Context, tx pgx.Tx, task db.Task) error {
	q := e.queries.WithTx(tx)
	if err := q.LockDeployment(ctx, task.DeploymentID); err != nil {
		return err
	}
	freed, err := q.ReleaseDeployment(ctx, db.ReleaseDeploymentParams{DeploymentID: task.DeploymentID, RootTaskID: RootOf(task)})
	if err != nil {
		return err
	}
	if freed == 0 && task.StartedAt != nil {
		return nil
	}
	return e.handOver(ctx, tx, task.DeploymentID)
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
