package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/db"
)

// reap recovers, every heartbeat period until ctx ends, the running tasks
// whose runner stopped renewing its heartbeat; it closes done when it returns.
func (e *Executor) reap(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(e.opts.HeartbeatEvery)
	defer tick.Stop()
	var reached time.Time
	for {
		e.reapOnce(ctx, &reached)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// reapOnce takes over and recovers each stale task it can. reached is since
// when this process has reached the database without a break (zero: it has
// not): a task is taken over only after StaleAfter of it, so that after an
// outage the runs still alive renew their heartbeats first.
func (e *Executor) reapOnce(ctx context.Context, reached *time.Time) {
	stale := e.opts.StaleAfter.Seconds()
	ids, err := e.queries.StaleTasks(ctx, stale)
	if err != nil {
		*reached = time.Time{}
		if ctx.Err() == nil {
			e.log.Warn("executor: look for stale tasks", "error", err)
		}
		return
	}
	if reached.IsZero() {
		*reached = time.Now()
	}
	if time.Since(*reached) < e.opts.StaleAfter {
		return
	}
	for _, id := range ids {
		e.takeOver(ctx, id)
	}
}

// takeOver recovers the stale task id unless this process still runs it (its
// run stops itself when its lease expires) or another process was quicker.
func (e *Executor) takeOver(ctx context.Context, id int64) {
	done, ok := e.running.addIfNone(id)
	if !ok {
		return
	}
	defer done()
	task, err := e.queries.TakeOverTask(ctx, db.TakeOverTaskParams{ID: id, Runner: e.opts.Name, StaleAfterSeconds: e.opts.StaleAfter.Seconds()})
	if errors.Is(err, pgx.ErrNoRows) {
		return // another process was quicker, or the run renewed its heartbeat
	}
	if err != nil {
		e.log.Warn("executor: take over a stale task", "task", id, "error", err)
		return
	}
	e.log.Warn("executor: recovering a task whose process stopped", "task", id)
	e.recoverTask(ctx, task, "The Styrmin process running this task stopped (crash, kill or restart).", TaskFailed)
}

// recoverTask ends the tasks that the task's actions started, asks the
// task's Runner to make the deployment consistent after its run stopped for
// reason, then queues the task again or ends it with status (failed, or
// canceled when a user stopped it). task is the row as its lease holder
// last read it.
func (e *Executor) recoverTask(ctx context.Context, task db.Task, reason string, status TaskStatus) {
	runner, ok := e.runners[task.Kind]
	if !ok {
		e.finish(ctx, &Run{Task: task, e: e}, status, nil, reason)
		return
	}
	run, err := e.newRun(ctx, task)
	if err != nil {
		e.finish(ctx, run, status, nil, reason+" "+err.Error())
		return
	}
	var resume bool
	var message string
	err = e.withHeartbeat(ctx, task, ignoreCancel, func(ctx context.Context) error {
		err := run.Fenced(ctx, func(tx pgx.Tx) error {
			return e.queries.WithTx(tx).EndRunningSteps(ctx, db.EndRunningStepsParams{TaskID: task.ID, Status: StepFailed, Message: reason})
		})
		if err != nil {
			return err
		}
		// What its actions started ends before the task recovers.
		e.endLinked(ctx, task.ID, 0)
		resume, message, err = runner.Recover(ctx, run)
		return err
	})
	switch {
	case errors.Is(err, ErrLeaseLost) || errors.Is(err, errLeaseExpired):
		e.log.Warn("executor: recovery stopped: its lease on the task was lost", "task", task.ID, "error", err)
	case err != nil:
		e.finish(ctx, run, status, nil, fmt.Sprintf("%s Recovering from it failed too: %v", reason, err))
	case resume && status != TaskCanceled:
		// The new run's steps follow this one, so the task's history says
		// it was interrupted even when the new run succeeds.
		note := func(ctx context.Context, s *Step) error {
			s.Warn("%s %s", reason, message)
			return nil
		}
		if err := run.Step(ctx, StepRecover, "Run the task again", note); err != nil {
			e.log.Error("executor: record a task's recovery", "task", task.ID, "error", err)
		}
		if err := e.requeue(ctx, run, run.Redactor().String(reason+" "+message)); err != nil {
			e.log.Error("executor: queue a recovered task again", "task", task.ID, "error", err)
		}
	default:
		e.finish(ctx, run, status, nil, reason+" "+message)
	}
}

// requeue puts a recovered task back in the queue under a new job. A
// top-level task keeps its deployment, so it runs next; a nested one is
// claimed again only while its chain runs (claim), and its chain's hold is
// settled now that it no longer runs.
func (e *Executor) requeue(ctx context.Context, run *Run, message string) error {
	return run.writeTx(ctx, "queue a recovered task again", func(ctx context.Context, tx pgx.Tx) error {
		queued, err := e.queries.WithTx(tx).RequeueTask(ctx, db.RequeueTaskParams{ID: run.Task.ID, Message: message})
		if err != nil {
			return err
		}
		if err := e.Enqueue(ctx, tx, queued.ID); err != nil {
			return err
		}
		return e.settle(ctx, tx, queued)
	})
}
