package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/secrets"
)

// TickEvery is how often a worker looks for due slots.
const TickEvery = 15 * time.Second

// MaxPerTick is the most schedules one look takes; the rest wait for the next.
const MaxPerTick = 100

// Queuer queues a task inside a caller's transaction (deployment.Service).
type Queuer interface {
	QueueIn(ctx context.Context, tx pgx.Tx, op deployment.Operation) (*deployment.Queued, func(), error)
}

var _ Queuer = (*deployment.Service)(nil)

// Runner runs the due slots of every schedule. Every worker process runs
// one: a slot is taken by one of them (TakeDueActionSchedules locks the
// row, FOR UPDATE SKIP LOCKED, and moves it to its next slot in the
// transaction that queues the run), however many look at once.
type Runner struct {
	pool  *pgxpool.Pool
	queue Queuer
	box   *secrets.Box
	log   *slog.Logger
	// Now is the clock (time.Now; a test's fake one).
	Now func() time.Time
}

// NewRunner returns the runner that queues runs through queue.
func NewRunner(pool *pgxpool.Pool, queue Queuer, box *secrets.Box, log *slog.Logger) *Runner {
	return &Runner{pool: pool, queue: queue, box: box, log: log, Now: time.Now}
}

// Run takes the due slots, and queues the prunes after ended runs, every
// TickEvery until ctx ends.
func (r *Runner) Run(ctx context.Context) {
	styrmin.Every(ctx, TickEvery, func(ctx context.Context) {
		if _, err := r.Tick(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("scheduled actions", "err", err)
		}
		if _, err := r.PruneAfterRuns(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("prunes after scheduled actions", "err", err)
		}
	})
}

// Tick takes every slot due now, in one transaction, and returns how many
// schedules it took.
func (r *Runner) Tick(ctx context.Context) (int, error) {
	now := r.Now()
	var committed []func()
	var taken int
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		due, err := q.TakeDueActionSchedules(ctx, db.TakeDueActionSchedulesParams{Now: now, MaxRows: MaxPerTick})
		if err != nil {
			return err
		}
		for _, row := range due {
			audited, err := r.take(ctx, tx, row, now)
			if err != nil {
				return fmt.Errorf("schedule %d: %w", row.ID, err)
			}
			committed = append(committed, audited)
		}
		taken = len(due)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("schedule: take due slots: %w", err)
	}
	for _, audited := range committed {
		audited()
	}
	return taken, nil
}

// take runs (or skips) the due slot of row inside tx and moves the schedule
// on to its next slot; audited is to be called once tx commits.
func (r *Runner) take(ctx context.Context, tx pgx.Tx, row db.TakeDueActionSchedulesRow, now time.Time) (audited func(), err error) {
	q := db.New(tx)
	c, cronErr, zoneErr := ParseCron(row.Cron, row.TimeZone, now)
	if err := errors.Join(cronErr, zoneErr); err != nil {
		// A zone the binary no longer knows: look again in an hour.
		return func() {}, q.AdvanceActionSchedule(ctx, db.AdvanceActionScheduleParams{ID: row.ID,
			NextAt: now.Add(time.Hour), LastSlot: &row.NextAt, LastOutcome: "failed: " + err.Error()})
	}
	slot := Take(c, row.NextAt, now, Missed(row.Missed))
	outcome, task, audited, err := r.run(ctx, tx, row, slot)
	if err != nil {
		return nil, err
	}
	return audited, q.AdvanceActionSchedule(ctx, db.AdvanceActionScheduleParams{ID: row.ID,
		NextAt: slot.Next, LastSlot: &slot.At, LastOutcome: outcome, LastTaskID: task})
}

// run queues the action of row for slot, or says why it does not.
func (r *Runner) run(ctx context.Context, tx pgx.Tx, row db.TakeDueActionSchedulesRow, slot Slot) (outcome string, task *int64, audited func(), err error) {
	none := func() {}
	if !slot.Run {
		return fmt.Sprintf("skipped: the slot of %s was missed (no worker ran then) and the missed-run policy is skip", slot.At.Format(time.RFC3339)), nil, none, nil
	}
	by := author{row.AuthorID, row.Author, row.AuthorRole, row.AuthorDisabled}
	entry := scheduledEntry(row.ID, row.DeploymentName, row.Action, by)
	entry.Detail["slot"] = slot.At.UTC().Format(time.RFC3339)
	if reason := by.refusal(); reason != "" {
		entry.Outcome, entry.Reason = audit.Refused, reason
		return "refused: " + reason, nil, none, audit.Record(ctx, tx, entry)
	}
	if Overlap(row.Overlap) == OverlapSkip {
		busy, err := db.New(tx).ActiveTaskOfDeployment(ctx, row.DeploymentID)
		switch {
		case err == nil:
			return fmt.Sprintf("skipped: the deployment was busy with task %d and the overlap policy is skip", busy), nil, none, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return "", nil, nil, err
		}
	}
	queued, audited, err := r.queueRun(ctx, tx, row, entry)
	if err != nil {
		entry.Outcome, entry.Reason = audit.OutcomeOf(err)
		return fmt.Sprintf("%s: %s", entry.Outcome, entry.Reason), nil, none, audit.Record(ctx, tx, entry)
	}
	if row.PruneAction != "" {
		if err := db.New(tx).InsertActionScheduleRun(ctx, db.InsertActionScheduleRunParams{TaskID: queued.TaskID, ScheduleID: row.ID}); err != nil {
			return "", nil, nil, err
		}
	}
	return fmt.Sprintf("queued task %d", queued.TaskID), &queued.TaskID, audited, nil
}

// queueRun queues the run of row's action as a task like the others, in a
// savepoint of tx: a run refused (an action the driver no longer has, a
// prompt its new version types otherwise) leaves the schedule to record why.
func (r *Runner) queueRun(ctx context.Context, tx pgx.Tx, row db.TakeDueActionSchedulesRow, entry audit.Entry) (*deployment.Queued, func(), error) {
	values := deployment.Values{}
	if err := json.Unmarshal(row.Prompts, &values.Plain); err != nil {
		return nil, nil, fmt.Errorf("schedule %d: prompts: %w", row.ID, err)
	}
	var err error
	if values.Secrets, err = r.box.OpenValues(row.SecretPrompts, SecretsAt(row.ID)); err != nil {
		return nil, nil, fmt.Errorf("schedule %d: secret prompts: %w", row.ID, err)
	}
	op := &deployment.RunAction{Name: row.DeploymentName, Action: row.Action, Prompts: deployment.JSONInput(values.All()),
		By: fmt.Sprintf("schedule %d of %s", row.ID, row.Author)}
	return r.queueIn(ctx, tx, op, entry)
}

// queueIn queues op, audited as entry, in a savepoint of tx: a run refused
// leaves tx to record why.
func (r *Runner) queueIn(ctx context.Context, tx pgx.Tx, op *deployment.RunAction, entry audit.Entry) (*deployment.Queued, func(), error) {
	ctx = audit.WithPending(ctx, &audit.Pending{Entry: entry})
	var queued *deployment.Queued
	var audited func()
	err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) (err error) {
		queued, audited, err = r.queue.QueueIn(ctx, sp, op)
		return err
	})
	return queued, audited, err
}

// scheduledEntry is the audit entry of a run of action by schedule id of
// a deployment: made by the schedule's author through the schedule.
func scheduledEntry(id int64, deployment, action string, by author) audit.Entry {
	return audit.Entry{
		Actor:  audit.Actor{UserID: by.id, Name: by.name, Via: audit.ViaSchedule, Role: by.role},
		Action: audit.ActionDeploymentAction,
		Target: audit.Target{Kind: audit.TargetDeployment, Name: deployment},
		Detail: map[string]string{"schedule": strconv.FormatInt(id, 10), "action": action},
	}
}

// author is the author of a schedule as they are now.
type author struct {
	id         int64
	name, role string
	disabled   bool
}

// refusal says why the author may no longer run actions: a schedule acts
// with its author's rights as they are at each run.
func (a author) refusal() string {
	role, err := auth.ParseRole(a.role)
	switch {
	case a.disabled:
		return fmt.Sprintf("the schedule's author, %s, is disabled", a.name)
	case err != nil || !role.AtLeast(auth.Operator):
		return fmt.Sprintf("the schedule's author, %s, is %s now and may not run actions", a.name, a.role)
	}
	return ""
}
