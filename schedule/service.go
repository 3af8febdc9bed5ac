package schedule

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/secrets"
)

// NextRuns is how many next runs a schedule shows.
const NextRuns = 3

// Deployments is what the service reads of deployments (deployment.Service).
type Deployments interface {
	Get(ctx context.Context, name string) (*deployment.Deployment, error)
	CheckAction(ctx context.Context, o *deployment.RunAction) (*deployment.CheckedAction, error)
}

var _ Deployments = (*deployment.Service)(nil)

// Service keeps the schedules of deployments' manual actions.
type Service struct {
	pool        *pgxpool.Pool
	deployments Deployments
	box         *secrets.Box
	// Now is the clock (time.Now; a test's fake one).
	Now func() time.Time
}

// NewService returns the schedules kept in pool.
func NewService(pool *pgxpool.Pool, deployments Deployments, box *secrets.Box) *Service {
	return &Service{pool: pool, deployments: deployments, box: box, Now: time.Now}
}

// Create is a new schedule of a deployment's manual action.
type Create struct {
	Deployment, Action string
	// Cron is five cron fields (or @daily, ...) read in the IANA time zone Zone.
	Cron, Zone string
	// Overlap and Missed are the policies; empty: skip and once.
	Overlap Overlap
	Missed  Missed
	// Prompts are the action's prompt values, checked as a run's are.
	Prompts deployment.Input
	// Retention is what the schedule keeps of its runs' artefacts; set only
	// for an action that declares them.
	Retention Retention
	// Author is the user who schedules; the runs act with their rights.
	Author int64
}

// Field keys of a schedule's form and API problems, beside the action's
// prompts (prompt.<action>.<name>).
const (
	FieldAction  = "action"
	FieldCron    = "cron"
	FieldZone    = "time_zone"
	FieldOverlap = "overlap"
	FieldMissed  = "missed"
	// FieldKeepLast and FieldKeepDays are the retention's.
	FieldKeepLast = "keep_last"
	FieldKeepDays = "keep_days"
)

// Create checks c (bad inputs: an EINVALID error with a message per field)
// and stores the schedule, its secret prompts sealed; it returns its id.
func (s *Service) Create(ctx context.Context, c Create) (int64, error) {
	checked, prune, cr, err := s.check(ctx, &c)
	if err != nil {
		return 0, err
	}
	plain, err := json.Marshal(checked.Plain)
	if err != nil {
		return 0, fmt.Errorf("schedule: prompts: %w", err)
	}
	params := db.InsertActionScheduleParams{DeploymentID: checked.DeploymentID, Action: checked.Action,
		Cron: cr.String(), TimeZone: cr.Zone(), Prompts: plain, Overlap: string(c.Overlap), Missed: string(c.Missed),
		AuthorID: c.Author, NextAt: cr.Next(s.Now()), PrunePrompts: []byte("{}"), PruneSecretPrompts: []string{}}
	if prune != nil {
		if params.PrunePrompts, err = json.Marshal(prune.Plain); err != nil {
			return 0, fmt.Errorf("schedule: prune prompts: %w", err)
		}
		params.PruneAction, params.PruneSecretPrompts = checked.Prune.Name, prune.Secrets
		params.KeepLast = pgtype.Int4{Int32: int32(c.Retention.KeepLast), Valid: c.Retention.KeepLast > 0}
		params.KeepDays = pgtype.Int4{Int32: int32(c.Retention.KeepDays), Valid: c.Retention.KeepDays > 0}
	}
	var id int64
	err = audit.Change(ctx, s.pool, func(tx pgx.Tx) (string, error) {
		q := db.New(tx)
		id, err = q.InsertActionSchedule(ctx, params)
		if err != nil {
			return "", err
		}
		sealed, err := s.box.SealValues(checked.Secrets, SecretsAt(id))
		if err != nil {
			return "", err
		}
		audit.Note(ctx, "schedule", strconv.FormatInt(id, 10))
		return c.Deployment, q.SetActionScheduleSecretPrompts(ctx, db.SetActionScheduleSecretPromptsParams{ID: id, SecretPrompts: sealed})
	})
	if err != nil {
		return 0, fmt.Errorf("schedule: create for %s: %w", c.Deployment, err)
	}
	return id, nil
}

// check checks c's fields, its action's prompts and its retention, filling
// in the default policies; prune are the prompts of the prune action that
// follows each run (nil: none does), its secret ones by name only.
func (s *Service) check(ctx context.Context, c *Create) (checked *deployment.CheckedAction, prune *prunePrompts, cr Cron, err error) {
	if _, err := s.deployments.Get(ctx, c.Deployment); err != nil {
		return nil, nil, Cron{}, err
	}
	fields := map[string]string{}
	cr, cronErr, zoneErr := ParseCron(c.Cron, c.Zone, s.Now())
	addField(fields, FieldCron, cronErr)
	addField(fields, FieldZone, zoneErr)
	c.Overlap = cmp.Or(c.Overlap, OverlapSkip)
	if c.Overlap != OverlapSkip && c.Overlap != OverlapQueue {
		fields[FieldOverlap] = fmt.Sprintf("the overlap policy is skip or queue, not %q", c.Overlap)
	}
	c.Missed = cmp.Or(c.Missed, MissedOnce)
	if c.Missed != MissedOnce && c.Missed != MissedSkip {
		fields[FieldMissed] = fmt.Sprintf("the missed-run policy is once or skip, not %q", c.Missed)
	}
	checked, err = s.deployments.CheckAction(ctx, &deployment.RunAction{Name: c.Deployment, Action: c.Action, Prompts: c.Prompts})
	var invalid *deployment.InvalidError
	switch {
	case errors.As(err, &invalid):
		for k, v := range invalid.FormFields() {
			fields[k] = v
		}
	case styrmin.ErrorCode(err) == styrmin.ENOTFOUND:
		fields[FieldAction] = styrmin.ErrorMessage(err)
	case err != nil:
		return nil, nil, Cron{}, err
	}
	if prune, err = c.Retention.check(ctx, s.deployments, c.Deployment, checked, fields); err != nil {
		return nil, nil, Cron{}, err
	}
	if len(fields) > 0 {
		return nil, nil, Cron{}, &styrmin.Error{Code: styrmin.EINVALID, Message: deployment.InvalidFields, Fields: fields}
	}
	return checked, prune, cr, nil
}

// addField records err's message for key, when there is one.
func addField(fields map[string]string, key string, err error) {
	if err != nil {
		fields[key] = err.Error()
	}
}
