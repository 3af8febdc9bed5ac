package executor

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/db"
)

// A run holds its task by a lease (tasks.lease), a generation that grows by
// one each time a process starts the task or takes it over for recovery.
// Three rules keep a task from running twice:
//   - every write of a run holds its lease (Run.Fenced): once another
//     process took the task over, the stale run can record nothing more;
//   - a run that cannot renew its heartbeat for leaseTime stops itself
//     (errLeaseExpired), a third of StaleAfter before anyone may take its
//     task over;
//   - a process never recovers a task it still runs (tracked), and takes a
//     task over only after it has itself reached the database, without a
//     break, for StaleAfter: after an outage the live runs renew their
//     heartbeats first.

// ErrLeaseLost refuses a write of a run whose task another process took over
// after its heartbeat had stopped: that process's recovery decides how the
// task ends, and the run must stop.
var ErrLeaseLost = errors.New("executor: another process took this task over")

// errLeaseExpired stops a run that could not renew its heartbeat in time: it
// stops before anyone may take its task over, and is recovered then.
var errLeaseExpired = errors.New("executor: the task's heartbeat could not be renewed in time")

// leaseTime is how long a run goes on without renewing its heartbeat before
// it stops itself: a third of StaleAfter before its task counts as stale.
func (o Options) leaseTime() time.Duration { return o.StaleAfter - o.StaleAfter/3 }

// Fenced runs fn in a transaction that holds the run's lease: fn runs only
// while the run still owns its task (ErrLeaseLost otherwise), and no process
// can take the task over before fn's writes commit. Every write a run makes
// for its task goes through Fenced.
func (r *Run) Fenced(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, r.e.pool, func(tx pgx.Tx) error {
		_, err := r.e.queries.WithTx(tx).HoldLease(ctx, db.HoldLeaseParams{ID: r.Task.ID, Lease: r.Task.Lease})
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrLeaseLost
		}
		if err != nil {
			return err
		}
		return fn(tx)
	})
}

// Write records what the run did: fn runs in a transaction that holds the
// run's lease (Fenced: ErrLeaseLost once another process took the task
// over), tried again until the database answers or ctx ends. What a run did
// is never lost, nor reported as a failure, because the database was away
// for a while when the run recorded it.
func (r *Run) Write(ctx context.Context, what string, fn func(ctx context.Context, q *db.Queries) error) error {
	return r.e.untilAnswered(ctx, what, func(ctx context.Context) error {
		return r.Fenced(ctx, func(tx pgx.Tx) error { return fn(ctx, r.e.queries.WithTx(tx)) })
	})
}

// Waits between two tries of untilAnswered: doubling from the first to the last.
const (
	firstRetryWait = 100 * time.Millisecond
	lastRetryWait  = 2 * time.Second
)

// untilAnswered calls fn until the database answers it, and returns fn's
// last error: nil, an answer (a refused statement, ErrLeaseLost), or the
// error of a try cut short by the end of ctx. Each try gets StaleAfter.
func (e *Executor) untilAnswered(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	wait := firstRetryWait
	for try := 1; ; try++ {
		tryCtx, cancel := context.WithTimeout(ctx, e.opts.StaleAfter)
		err := fn(tryCtx)
		cancel()
		if err == nil || !db.IsUnavailable(err) || ctx.Err() != nil {
			return err
		}
		if try == 1 || try%10 == 0 {
			e.log.Warn("executor: the database did not answer; trying again", "what", what, "try", try, "error", err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, lastRetryWait)
	}
}

// tracked are the tasks this process runs or recovers right now.
type tracked struct {
	mu  sync.Mutex
	ids map[int64]bool
}

// track marks task id as this process's until untrack is called; ok is false
// when it was already.
func (t *tracked) track(id int64) (untrack func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ids[id] {
		return nil, false
	}
	if t.ids == nil {
		t.ids = map[int64]bool{}
	}
	t.ids[id] = true
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.ids, id)
	}, true
}
