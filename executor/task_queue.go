package executor

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/styrmin/styrmin/db"
)

// taskArgs is the River job that runs one task.
type taskArgs struct {
	TaskID int64 `json:"task_id"`
}

// Kind names the job kind in River's table.
func (taskArgs) Kind() string { return "styrmin_task" }

// InsertOpts gives a task's job its retries: only a failure to reach the
// database is retried (a task's own failure ends the task, not the job).
func (taskArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 50} }

// Enqueue queues the task taskID inside tx: it runs once tx commits, and
// never if tx rolls back, so a task is never lost nor run without its row. A
// nested task goes to the queue of its depth; one nested deeper than
// MaxLinkDepth is refused (ErrTooDeep). Every Enqueue wakes the queue's
// producers when tx commits: River's client leaves its notification out when
// it sent one for the queue within the fetch cooldown, and a task committed
// after the fetch that notification caused would wait for River's poll.
func (e *Executor) Enqueue(ctx context.Context, tx pgx.Tx, taskID int64) error {
	depth, err := e.queries.WithTx(tx).TaskDepth(ctx, taskID)
	if err != nil {
		return fmt.Errorf("executor: enqueue task %d: %w", taskID, err)
	}
	if depth > MaxLinkDepth {
		return fmt.Errorf("executor: enqueue task %d: %w", taskID, ErrTooDeep)
	}
	queue := queueOf(int(depth))
	res, err := e.river.InsertTx(ctx, tx, taskArgs{TaskID: taskID}, &river.InsertOpts{Queue: queue})
	if err != nil {
		return fmt.Errorf("executor: enqueue task %d: %w", taskID, err)
	}
	if err := e.queries.WithTx(tx).WakeQueue(ctx, queue); err != nil {
		return fmt.Errorf("executor: enqueue task %d: %w", taskID, err)
	}
	if err := e.queries.WithTx(tx).SetTaskJob(ctx, db.SetTaskJobParams{ID: taskID, RiverJobID: &res.Job.ID}); err != nil {
		return fmt.Errorf("executor: enqueue task %d: %w", taskID, err)
	}
	return nil
}

// ErrNotQueued means a task could not be cancelled because it no longer waits.
var ErrNotQueued = errors.New("executor: the task is no longer queued")

// CancelQueued cancels a task that has not started yet.
func (e *Executor) CancelQueued(ctx context.Context, taskID int64, message string) error {
	err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		task, err := e.queries.WithTx(tx).CancelQueuedTask(ctx, db.CancelQueuedTaskParams{ID: taskID, Message: message})
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotQueued
		}
		if err != nil {
			return err
		}
		// Its job finds the task cancelled and ends.
		return e.ended(ctx, tx, task)
	})
	if err != nil && !errors.Is(err, ErrNotQueued) {
		return fmt.Errorf("executor: cancel task %d: %w", taskID, err)
	}
	return err
}

// ErrNotRunning means a task could not be stopped because it does not run.
var ErrNotRunning = errors.New("executor: the task is not running")

// RequestCancel asks the runner of a running task to stop it: at its next
// heartbeat the run's context ends, the Runner recovers what it was doing,
// and the task ends canceled.
func (e *Executor) RequestCancel(ctx context.Context, taskID int64, by string) error {
	_, err := e.queries.RequestCancel(ctx, db.RequestCancelParams{ID: taskID, By: by})
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotRunning
	}
	if err != nil {
		return fmt.Errorf("executor: cancel task %d: %w", taskID, err)
	}
	return nil
}

// handOver gives a free deployment to its first queued task at once, under a
// new job (whose insert wakes a worker), instead of at that task's next
// retry. The task's earlier job then finds itself replaced and ends.
func (e *Executor) handOver(ctx context.Context, tx pgx.Tx, deploymentID int64) error {
	next, err := e.queries.WithTx(tx).NextQueuedTask(ctx, deploymentID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return e.Enqueue(ctx, tx, next.ID)
}
