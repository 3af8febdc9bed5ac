package schedule

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
)

// Pause stops schedule id of the named deployment from running until Resume.
func (s *Service) Pause(ctx context.Context, name string, id int64) error {
	return s.change(ctx, name, id, "pause", func(q *db.Queries, depID int64) (int64, error) {
		return q.SetActionSchedulePaused(ctx, db.SetActionSchedulePausedParams{ID: id, DeploymentID: depID, Paused: true})
	})
}

// Resume runs a paused schedule again from its first slot after now: the
// slots of the pause are not run.
func (s *Service) Resume(ctx context.Context, name string, id int64) error {
	return s.change(ctx, name, id, "resume", func(q *db.Queries, depID int64) (int64, error) {
		row, err := q.GetActionScheduleCron(ctx, db.GetActionScheduleCronParams{ID: id, DeploymentID: depID})
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		now := s.Now()
		c, cronErr, zoneErr := ParseCron(row.Cron, row.TimeZone, now)
		if err := errors.Join(cronErr, zoneErr); err != nil {
			return 0, styrmin.Errorf(styrmin.ECONFLICT, "Schedule %d no longer reads (%v); delete it and schedule again.", id, err)
		}
		return q.SetActionSchedulePaused(ctx, db.SetActionSchedulePausedParams{ID: id, DeploymentID: depID, Paused: false, NextAt: c.Next(now)})
	})
}

// Delete removes schedule id of the named deployment.
func (s *Service) Delete(ctx context.Context, name string, id int64) error {
	return s.change(ctx, name, id, "delete", func(q *db.Queries, depID int64) (int64, error) {
		return q.DeleteActionSchedule(ctx, db.DeleteActionScheduleParams{ID: id, DeploymentID: depID})
	})
}

// change makes a change of schedule id of the named deployment in one
// transaction with its audit entry; change returns the rows it changed (0:
// no such schedule, ENOTFOUND).
func (s *Service) change(ctx context.Context, name string, id int64, what string, change func(q *db.Queries, depID int64) (int64, error)) error {
	dep, err := s.deployments.Get(ctx, name)
	if err != nil {
		return err
	}
	audit.Note(ctx, "schedule", strconv.FormatInt(id, 10))
	err = audit.Change(ctx, s.pool, func(tx pgx.Tx) (string, error) {
		n, err := change(db.New(tx), dep.ID)
		if err == nil && n == 0 {
			err = styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s has no schedule %d.", name, id)
		}
		return name, err
	})
	if err != nil {
		return fmt.Errorf("schedule: %s %d of %s: %w", what, id, name, err)
	}
	return nil
}
