package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// Schedule is a schedule as pages and the API show it: never a secret
// prompt's value.
type Schedule struct {
	ID                 int64
	Action, Cron, Zone string
	Overlap            Overlap
	Missed             Missed
	// Prompts are the plain prompt values.
	Prompts map[string]any
	Paused  bool
	// Next are the next NextRuns slots; none while paused.
	Next []time.Time
	// LastSlot is the last slot taken (nil before the first), LastOutcome
	// what came of it and LastTaskID the task it queued (0: none).
	LastSlot    *time.Time
	LastOutcome string
	LastTaskID  int64
	Author      string
	CreatedAt   time.Time
	// Retention is what the schedule keeps of its runs' artefacts, pruned
	// by PruneAction after each run that succeeds; LastPruneOutcome says
	// what came of the last such prune and LastPruneTaskID its task (0: none).
	Retention        Retention
	PruneAction      string
	LastPruneOutcome string
	LastPruneTaskID  int64
}

// List returns the schedules of the named deployment, oldest first.
func (s *Service) List(ctx context.Context, name string) ([]Schedule, error) {
	dep, err := s.deployments.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(s.pool).ListActionSchedules(ctx, dep.ID)
	if err != nil {
		return nil, fmt.Errorf("schedule: list for %s: %w", name, err)
	}
	out := make([]Schedule, 0, len(rows))
	for _, r := range rows {
		sc, err := toSchedule(r)
		if err != nil {
			return nil, fmt.Errorf("schedule: list for %s: %w", name, err)
		}
		out = append(out, sc)
	}
	return out, nil
}

// toSchedule reads a row; its next runs start at its next slot.
func toSchedule(r db.ListActionSchedulesRow) (Schedule, error) {
	sc := Schedule{ID: r.ID, Action: r.Action, Cron: r.Cron, Zone: r.TimeZone, Overlap: Overlap(r.Overlap), Missed: Missed(r.Missed),
		Paused: r.Paused, LastSlot: r.LastSlot, LastOutcome: r.LastOutcome, Author: r.Author, CreatedAt: r.CreatedAt}
	if r.LastTaskID != nil {
		sc.LastTaskID = *r.LastTaskID
	}
	sc.Retention = Retention{KeepLast: int(r.KeepLast.Int32), KeepDays: int(r.KeepDays.Int32)}
	sc.PruneAction, sc.LastPruneOutcome = r.PruneAction, r.LastPruneOutcome
	if r.LastPruneTaskID != nil {
		sc.LastPruneTaskID = *r.LastPruneTaskID
	}
	if err := json.Unmarshal(r.Prompts, &sc.Prompts); err != nil {
		return Schedule{}, fmt.Errorf("schedule %d: prompts: %w", r.ID, err)
	}
	if sc.Paused {
		return sc, nil
	}
	sc.Next = []time.Time{r.NextAt}
	if c, cronErr, zoneErr := ParseCron(r.Cron, r.TimeZone, r.NextAt); cronErr == nil && zoneErr == nil {
		sc.Next = append(sc.Next, c.NextN(r.NextAt, NextRuns-1)...)
	}
	return sc, nil
}

// Get returns schedule id of the named deployment.
func (s *Service) Get(ctx context.Context, name string, id int64) (Schedule, error) {
	list, err := s.List(ctx, name)
	if err != nil {
		return Schedule{}, err
	}
	for _, sc := range list {
		if sc.ID == id {
			return sc, nil
		}
	}
	return Schedule{}, styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s has no schedule %d.", name, id)
}
