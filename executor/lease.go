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
//   - a process never recovers a task it still runs or recovers (tracked), and takes a
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
	return r.writeTx(ctx, what, func(ctx context.Context, tx pgx.Tx) error { return fn(ctx, r.e.queries.WithTx(tx)) })
}

// writeTx is Write for the executor's own records, which need the
// transaction itself (to queue jobs in it, or settle a deployment).
func (r *Run) writeTx(ctx context.Context, what string, fn func(ctx context.Context, tx pgx.Tx) error) error {
	return r.e.untilAnswered(ctx, what, func(ctx context.Context) error {
		return r.Fenced(ctx, func(tx pgx.Tx) error { return fn(ctx, tx) })
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

// tracked counts the runs and recoveries of each task this process has
// under way: a recovery's requeue may be claimed here before the recovery
// has returned.
type tracked struct {
	mu sync.Mutex
	n  map[int64]int
}

// add counts one more run of task id here until done is called.
func (t *tracked) add(id int64) (done func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.count(id)
}

// addIfNone is add, unless task id has a run or recovery here already (ok
// is false then, and nothing is counted).
func (t *tracked) addIfNone(id int64) (done func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n[id] > 0 {
		return nil, false
	}
	return t.count(id), true
}

// count counts one more run of id (t.mu held) and returns what uncounts it.
func (t *tracked) count(id int64) (done func()) {
	if t.n == nil {
		t.n = map[int64]int{}
	}
	t.n[id]++
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.n[id]--; t.n[id] == 0 {
			delete(t.n, id)
		}
	}
}
