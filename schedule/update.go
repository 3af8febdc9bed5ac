package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
)

// Update is an edit of a schedule: each field set replaces the schedule's,
// each nil keeps it. The action and its prompt values stay; to change them,
// delete the schedule and make another.
type Update struct {
	Cron, Zone *string
	Overlap    *Overlap
	Missed     *Missed
	// KeepLast and KeepDays are the retention's rules (0: no such rule;
	// both 0 keeps everything).
	KeepLast, KeepDays *int
}

// Update edits schedule id of the named deployment in one transaction with
// its audit entry: the edited schedule is checked as Create checks a new one
// (the same field errors, a retention only for an action that declares
// artefacts, the prune action's limits) against the action's stored prompt
// values. A schedule that runs moves to the new cron's first slot after now;
// a paused one keeps waiting for Resume.
func (s *Service) Update(ctx context.Context, name string, id int64, u Update) error {
	return s.change(ctx, name, id, "update", func(q *db.Queries, depID int64) (int64, error) {
		row, err := q.LockActionSchedule(ctx, db.LockActionScheduleParams{ID: id, DeploymentID: depID})
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		c, err := s.edited(id, row, u)
		if err != nil {
			return 0, err
		}
		c.Deployment = name
		checked, prune, cr, err := s.check(ctx, &c)
		if err != nil {
			return 0, err
		}
		p := db.UpdateActionScheduleParams{ID: id, DeploymentID: depID, Cron: cr.String(), TimeZone: cr.Zone(),
			Overlap: string(c.Overlap), Missed: string(c.Missed), NextAt: cr.Next(s.Now()), PrunePrompts: []byte("{}"), PruneSecretPrompts: []string{}}
		if prune != nil {
			if p.PrunePrompts, err = json.Marshal(prune.Plain); err != nil {
				return 0, fmt.Errorf("prune prompts: %w", err)
			}
			p.PruneAction, p.PruneSecretPrompts = checked.Prune.Name, prune.Secrets
			p.KeepLast = pgtype.Int4{Int32: int32(c.Retention.KeepLast), Valid: c.Retention.KeepLast > 0}
			p.KeepDays = pgtype.Int4{Int32: int32(c.Retention.KeepDays), Valid: c.Retention.KeepDays > 0}
		}
		return q.UpdateActionSchedule(ctx, p)
	})
}

// edited is the schedule of row with u's fields in place, as a Create to
// check: its prompt values are the stored ones, secret ones unsealed.
func (s *Service) edited(id int64, row db.LockActionScheduleRow, u Update) (Create, error) {
	values := deployment.Values{}
	if err := json.Unmarshal(row.Prompts, &values.Plain); err != nil {
		return Create{}, fmt.Errorf("prompts: %w", err)
	}
	var err error
	if values.Secrets, err = s.box.OpenValues(row.SecretPrompts, SecretsAt(id)); err != nil {
		return Create{}, fmt.Errorf("secret prompts: %w", err)
	}
	c := Create{Action: row.Action, Prompts: deployment.JSONInput(values.All()), Cron: row.Cron, Zone: row.TimeZone, Overlap: Overlap(row.Overlap), Missed: Missed(row.Missed),
		Retention: Retention{KeepLast: int(row.KeepLast.Int32), KeepDays: int(row.KeepDays.Int32)}}
	set(&c.Cron, u.Cron)
	set(&c.Zone, u.Zone)
	set(&c.Overlap, u.Overlap)
	set(&c.Missed, u.Missed)
	set(&c.Retention.KeepLast, u.KeepLast)
	set(&c.Retention.KeepDays, u.KeepDays)
	return c, nil
}

// set replaces *dst with *v when v is set.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
