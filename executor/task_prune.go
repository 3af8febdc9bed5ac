package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// PruneBatch is how many task chains one transaction of Prune deletes at
// most: an action's log lines can count in thousands, so a batch, and the
// locks it holds, stay short.
const PruneBatch = 100

// Pruned counts what Prune deleted: task chains and their tasks.
type Pruned struct {
	Chains, Tasks int64
}

// Prune deletes the task chains whose top-level task ended before before,
// oldest first, with their steps, log lines, action tokens and webhook
// deliveries, batch chains per transaction, until none is left or ctx ends.
// It keeps the chains that still run or wait and each deployment's newest
// top-level task (db.PruneTaskChains); the revisions of pruned tasks stay.
func (e *Executor) Prune(ctx context.Context, before time.Time, batch int) (Pruned, error) {
	var total Pruned
	for ctx.Err() == nil {
		row, err := e.queries.PruneTaskChains(ctx, db.PruneTaskChainsParams{EndedBefore: before, MaxChains: int32(batch)})
		if err != nil {
			return total, fmt.Errorf("executor: prune tasks: %w", db.Classify(err))
		}
		total.Chains += row.Chains
		total.Tasks += row.Tasks
		if e.opts.Observer != nil && row.Tasks > 0 {
			e.opts.Observer.TasksPruned(row.Tasks)
		}
		if row.Chains < int64(batch) {
			break
		}
	}
	return total, nil
}

// PruneEvery prunes the task chains that ended more than retention ago now
// and then every period until ctx ends; a retention of 0 keeps every task
// and returns at once.
func (e *Executor) PruneEvery(ctx context.Context, retention, period time.Duration) {
	styrmin.PruneEvery(ctx, retention, period, func(ctx context.Context, before time.Time) {
		pruned, err := e.Prune(ctx, before, PruneBatch)
		switch {
		case err != nil && ctx.Err() == nil:
			e.log.Warn("prune old tasks", "err", err)
		case pruned.Chains > 0:
			e.log.Info("pruned old tasks", "chains", pruned.Chains, "tasks", pruned.Tasks, "retention", retention)
		}
	})
}
