package executor

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/db"
)

// RecoverStaleTasks takes over and recovers the stale tasks now, as the
// reaper does once this process has reached the database for StaleAfter.
func (e *Executor) RecoverStaleTasks(ctx context.Context) error {
	ids, err := e.queries.StaleTasks(ctx, e.opts.StaleAfter.Seconds())
	for _, id := range ids {
		e.takeOver(ctx, id)
	}
	return err
}

// ClaimNow claims task id under its current job, as the job's worker does,
// and returns its run once it started (nil: it waits, or does not run).
func (e *Executor) ClaimNow(ctx context.Context, id int64) (*Run, error) {
	t, err := e.queries.GetTask(ctx, id)
	if err != nil || t.RiverJobID == nil {
		return nil, err
	}
	task, _, err := e.claim(ctx, *t.RiverJobID, id)
	if task == nil || err != nil {
		return nil, err
	}
	return &Run{Task: *task, e: e}, nil
}

// Finish records how run ended, as its worker does when its Runner returns.
func (e *Executor) Finish(ctx context.Context, run *Run, status TaskStatus) {
	e.finish(ctx, run, status, nil, "")
}

// RecoverCancelled recovers run, which a user asked to cancel, as its worker
// does once its Runner stopped.
func (e *Executor) RecoverCancelled(ctx context.Context, run *Run) {
	e.recoverTask(ctx, run.Task, "Cancelled while it ran.", TaskCanceled)
}

// Beat renews run's heartbeat once, as its worker does; false when the run
// lost its task.
func (e *Executor) Beat(ctx context.Context, run *Run) (bool, error) {
	_, err := e.queries.BeatTask(ctx, db.BeatTaskParams{ID: run.Task.ID, Lease: run.Task.Lease})
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
