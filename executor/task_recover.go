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
	for {
		e.reapOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// reapOnce takes over and recovers each stale task it can.
func (e *Executor) reapOnce(ctx context.Context) {
	stale := e.opts.StaleAfter.Seconds()
	ids, err := e.queries.StaleTasks(ctx, stale)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("executor: look for stale tasks", "error", err)
		}
		return
	}
	for _, id := range ids {
		task, err := e.queries.TakeOverTask(ctx, db.TakeOverTaskParams{ID: id, Runner: e.opts.Name, StaleAfterSeconds: stale})
		if errors.Is(err, pgx.ErrNoRows) {
			continue // another process was quicker
		}
		if err != nil {
			e.log.Warn("executor: take over a stale task", "task", id, "error", err)
			continue
		}
		e.log.Warn("executor: recovering a task whose process stopped", "task", id, "runner", task.Runner)
		e.recoverTask(ctx, task, "The Styrmin process running this task stopped (crash, kill or restart).", TaskFailed)
	}
}

// recoverTask ends the tasks that the task's actions started, asks the
// task's Runner to make the deployment consistent after its run stopped for
// reason, then queues the task again or ends it with status (failed, or
// canceled when a user stopped it).
func (e *Executor) recoverTask(ctx context.Context, task db.Task, reason string, status TaskStatus) {
	runner, ok := e.runners[task.Kind]
	if !ok {
		e.finish(&Run{Task: task}, status, nil, reason)
		return
	}
	run, err := e.newRun(ctx, task)
	if err != nil {
		e.finish(run, status, nil, reason+" "+err.Error())
		return
	}
	var resume bool
	var message string
	err = e.withHeartbeat(ctx, task, ignoreCancel, func(ctx context.Context) error {
		if err := e.queries.EndRunningSteps(ctx, db.EndRunningStepsParams{TaskID: task.ID, Status: StepFailed, Message: reason}); err != nil {
			return err
		}
		// What its actions started ends before the task recovers.
		e.endLinked(ctx, task.ID, 0)
		var err error
		resume, message, err = runner.Recover(ctx, run)
		return err
	})
	switch {
	case errors.Is(err, errTakenOver):
		return
	case err != nil:
		e.finish(run, status, nil, fmt.Sprintf("%s Recovering from it failed too: %v", reason, err))
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
		if err := e.requeue(ctx, task, run.Redactor().String(reason+" "+message)); err != nil {
			e.log.Error("executor: queue a recovered task again", "task", task.ID, "error", err)
		}
	default:
		e.finish(run, status, nil, reason+" "+message)
	}
}

// requeue puts a recovered task back in the queue under a new job; it keeps
// its deployment, so it runs next.
func (e *Executor) requeue(ctx context.Context, task db.Task, message string) error {
	return pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		if err := e.queries.WithTx(tx).RequeueTask(ctx, db.RequeueTaskParams{ID: task.ID, Runner: e.opts.Name, Message: message}); err != nil {
			return err
		}
		return e.Enqueue(ctx, tx, task.ID)
	})
}
