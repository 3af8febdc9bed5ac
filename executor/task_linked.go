package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/styrmin/styrmin/db"
)

// A task's actions may start tasks (linked, or nested, tasks) and wait for
// them. Each depth of nesting has a River queue of its own, with its own
// workers: a task waits only for tasks one level deeper, and the deepest level
// starts none, so a worker that waits never keeps the task it waits for from
// running (no level can be filled with waiting tasks for good).

// MaxLinkDepth is how deep tasks may nest: a top-level task's actions start
// tasks of depth 1, whose actions may start tasks of depth 2, which start none.
const MaxLinkDepth = 2

// ErrTooDeep refuses a task nested deeper than MaxLinkDepth.
var ErrTooDeep = fmt.Errorf("executor: a task started by an action can be nested %d deep at most", MaxLinkDepth)

// queueOf is the River queue of the tasks of a depth of nesting.
func queueOf(depth int) string {
	if depth == 0 {
		return river.QueueDefault
	}
	return fmt.Sprintf("linked_%d", depth)
}

// linkedPoll is how often endLinked looks whether the tasks it stops have ended.
const linkedPoll = 50 * time.Millisecond

// byEndedAction is who cancels a linked task whose action ended first, as
// its message names it ("Cancelled by ... while it ran.").
const byEndedAction = "Styrmin, as the action that started it had ended,"

// endLinked ends the tasks that task taskID's step stepID (every step of the
// task when 0) started and that have not ended, and the tasks those started:
// a queued one is cancelled, a running one asked to stop, and endLinked waits
// until none runs. It waits twice StaleAfter at most (a task whose process
// died is recovered by another one); a linked task that still runs then keeps
// the deployment held by its chain until it ends.
func (e *Executor) endLinked(ctx context.Context, taskID, stepID int64) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*e.opts.StaleAfter)
	defer cancel()
	for {
		running, err := e.stopLinked(ctx, e.pool, taskID, stepID)
		if err == nil && running == 0 {
			return
		}
		if err != nil {
			e.log.Warn("executor: stop the tasks an action started", "task", taskID, "step", stepID, "error", err)
		}
		select {
		case <-ctx.Done():
			e.log.Warn("executor: tasks an action started still run; they keep the deployment until they end", "task", taskID, "step", stepID, "running", running)
			return
		case <-time.After(linkedPoll):
		}
	}
}

// conn is the database or a transaction in it.
type conn interface {
	db.DBTX
	Begin(ctx context.Context) (pgx.Tx, error)
}

// stopLinked is one pass of endLinked on c: it cancels the queued tasks and
// asks the running ones to stop, and says how many run.
func (e *Executor) stopLinked(ctx context.Context, c conn, taskID, stepID int64) (running int, err error) {
	q := db.New(c)
	tasks, err := q.UnfinishedLinkedTasks(ctx, db.UnfinishedLinkedTasksParams{TaskID: taskID, StepID: stepID})
	if err != nil {
		return 0, fmt.Errorf("executor: linked tasks of task %d: %w", taskID, err)
	}
	for _, t := range tasks {
		if t.Status == TaskQueued {
			err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
				cancelled, err := e.queries.WithTx(tx).CancelQueuedTask(ctx, db.CancelQueuedTaskParams{ID: t.ID, Message: "Cancelled before it started: the action that started it had ended."})
				if err != nil {
					return err
				}
				return e.ended(ctx, tx, cancelled)
			})
			if err == nil {
				continue
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return 0, fmt.Errorf("executor: cancel linked task %d: %w", t.ID, err)
			}
			// It started meanwhile.
		}
		running++
		if t.CancelRequestedBy.Valid {
			continue
		}
		if _, err := q.RequestCancel(ctx, db.RequestCancelParams{ID: t.ID, By: byEndedAction}); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return 0, fmt.Errorf("executor: cancel linked task %d: %w", t.ID, err)
		}
	}
	return running, nil
}

// orphaned says why a nested task must not run, "" when it may: the action
// that started it, or the task chain it belongs to, has ended.
func orphaned(ctx context.Context, q *db.Queries, t db.Task) (string, error) {
	o, err := q.LinkedTaskOrigin(ctx, t.ID)
	if err != nil {
		return "", fmt.Errorf("executor: origin of task %d: %w", t.ID, err)
	}
	switch {
	case o.RootStatus != TaskRunning:
		return fmt.Sprintf("Cancelled before it started: task %d, under which it was to run, is no longer running (%s).", o.RootID, o.RootStatus), nil
	case o.StepStatus != StepRunning:
		return fmt.Sprintf("Cancelled before it started: the action that started it (%s, task %d) had ended.", o.StepTitle, o.ParentID), nil
	}
	return "", nil
}
