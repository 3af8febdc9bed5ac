package executor

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/styrmin/styrmin/db"
)

// Events hears of every task that starts or ends (succeeded, failed,
// canceled), inside the transaction that records it, so that what it queues
// (a webhook delivery) commits with the change or not at all.
type Events interface {
	// TaskChanged is called in tx right after task's row was changed (task
	// is the row as changed); jobs inserts River jobs in tx. Its error
	// undoes only what it did: the task's change commits all the same.
	TaskChanged(ctx context.Context, tx pgx.Tx, jobs JobInserter, task db.Task) error
}

// JobInserter queues River jobs other than tasks (*Executor is one): the job
// runs once tx commits, on a queue a process works through Options.Extra.
type JobInserter interface {
	InsertJob(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error)
}

var _ JobInserter = (*Executor)(nil)

// JobWorkers is River work a process does besides tasks, on a queue of its
// own (webhook deliveries); it is built into the executor's one River client.
type JobWorkers interface {
	// Queue names the River queue of the jobs and how many run at once.
	Queue() (name string, workers int)
	// Register adds the River workers of the jobs.
	Register(workers *river.Workers)
}

// InsertJob inserts a River job in tx and wakes its queue's producers when
// tx commits (see Enqueue); it returns the job's id.
func (e *Executor) InsertJob(ctx context.Context, tx pgx.Tx, args river.JobArgs, opts *river.InsertOpts) (int64, error) {
	res, err := e.river.InsertTx(ctx, tx, args, opts)
	if err != nil {
		return 0, fmt.Errorf("executor: insert %s job: %w", args.Kind(), err)
	}
	if err := e.queries.WithTx(tx).WakeQueue(ctx, res.Job.Queue); err != nil {
		return 0, fmt.Errorf("executor: insert %s job: %w", args.Kind(), err)
	}
	return res.Job.ID, nil
}

// taskChanged tells Options.Events, in a savepoint of tx, that task's row
// changed. What Events does is undone when it fails, and logged: a webhook
// that cannot be queued never keeps a task from starting or ending.
func (e *Executor) taskChanged(ctx context.Context, tx pgx.Tx, task db.Task) {
	if e.opts.Events == nil {
		return
	}
	err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error { return e.opts.Events.TaskChanged(ctx, sp, e, task) })
	if err != nil {
		e.log.Error("executor: tell of a task's change", "task", task.ID, "status", task.Status, "error", err)
	}
}
