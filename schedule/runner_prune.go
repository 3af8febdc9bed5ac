package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// PruneAfterRuns queues the prune action after each ended run of a
// schedule with a retention that no worker handled yet (one whose run
// succeeded; a failed or canceled run prunes nothing), in one transaction
// with the record that it was handled: exactly once per run, also when a
// worker stopped between the run's end and this look. It returns how many
// ended runs it handled.
func (r *Runner) PruneAfterRuns(ctx context.Context) (int, error) {
	var committed []func()
	var handled int
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		ended, err := db.New(tx).TakeEndedActionScheduleRuns(ctx, MaxPerTick)
		if err != nil {
			return err
		}
		for _, run := range ended {
			audited, err := r.pruneAfter(ctx, tx, run)
			if err != nil {
				return fmt.Errorf("schedule %d, task %d: %w", run.ScheduleID, run.TaskID, err)
			}
			committed = append(committed, audited)
		}
		handled = len(ended)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("schedule: prune after runs: %w", err)
	}
	for _, audited := range committed {
		audited()
	}
	return handled, nil
}

// pruneAfter queues the prune after the ended run (or says why not) inside
// tx and records the outcome; audited is to be called once tx commits.
func (r *Runner) pruneAfter(ctx context.Context, tx pgx.Tx, run db.TakeEndedActionScheduleRunsRow) (audited func(), err error) {
	finish := func(outcome string, task *int64) error {
		return db.New(tx).FinishActionScheduleRun(ctx, db.FinishActionScheduleRunParams{TaskID: run.TaskID, PruneOutcome: outcome, PruneTaskID: task})
	}
	none := func() {}
	switch {
	case run.TaskStatus != executor.TaskSucceeded:
		return none, finish(fmt.Sprintf("not pruned: run task %d %s", run.TaskID, run.TaskStatus), nil)
	case run.PruneAction == "":
		return none, finish("not pruned: the schedule keeps everything now", nil)
	}
	by := author{run.AuthorID, run.Author, run.AuthorRole, run.AuthorDisabled}
	entry := scheduledEntry(run.ScheduleID, run.DeploymentName, run.PruneAction, by)
	entry.Detail["after_task"] = strconv.FormatInt(run.TaskID, 10)
	if reason := by.refusal(); reason != "" {
		entry.Outcome, entry.Reason = audit.Refused, reason
		return none, recordAnd(ctx, tx, entry, finish("refused: "+reason, nil))
	}
	prompts, err := r.prunePrompts(run)
	if err != nil {
		return nil, err
	}
	op := &deployment.RunAction{Name: run.DeploymentName, Action: run.PruneAction, Prompts: deployment.JSONInput(prompts),
		By: fmt.Sprintf("schedule %d of %s, after task %d", run.ScheduleID, run.Author, run.TaskID)}
	queued, audited, err := r.queueIn(ctx, tx, op, entry)
	if err != nil {
		entry.Outcome, entry.Reason = audit.OutcomeOf(err)
		return none, recordAnd(ctx, tx, entry, finish(fmt.Sprintf("%s: %s", entry.Outcome, entry.Reason), nil))
	}
	return audited, finish(fmt.Sprintf("queued task %d", queued.TaskID), &queued.TaskID)
}

// recordAnd records entry in tx unless err, the step before it, failed.
func recordAnd(ctx context.Context, tx pgx.Tx, entry audit.Entry, err error) error {
	if err != nil {
		return err
	}
	return audit.Record(ctx, tx, entry)
}

// prunePrompts are the prompt values of the prune after run: its plain ones
// and the schedule's secret ones it takes, unsealed here, in memory only,
// for the prune's task to seal as a run's secret prompts are.
func (r *Runner) prunePrompts(run db.TakeEndedActionScheduleRunsRow) (map[string]any, error) {
	var prompts map[string]any
	if err := json.Unmarshal(run.PrunePrompts, &prompts); err != nil {
		return nil, fmt.Errorf("prune prompts: %w", err)
	}
	if len(run.PruneSecretPrompts) == 0 {
		return prompts, nil
	}
	secrets, err := r.box.OpenValues(run.SecretPrompts, SecretsAt(run.ScheduleID))
	if err != nil {
		return nil, fmt.Errorf("secret prompts: %w", err)
	}
	if prompts == nil {
		prompts = map[string]any{}
	}
	for _, name := range run.PruneSecretPrompts {
		if v, ok := secrets[name]; ok {
			prompts[name] = v
		}
	}
	return prompts, nil
}
