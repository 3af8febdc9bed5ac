// Package scale fills a Styrmin database with a long history (deployments,
// ended tasks, their steps and log lines, revisions, audit entries), set-based,
// for the benchmarks that check that pages cost the same as history grows
// (docs/performance.md, "Pages as history grows"). The command in fill/ runs
// it against any migrated database.
package scale

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// fillSQL writes the history of Fill; it reads its sizes from settings.
//
//go:embed fill.sql
var fillSQL string

// Size is how much history Fill writes.
type Size struct {
	Deployments  int // deployments, each with at least one task (its install)
	Tasks        int // ended top-level tasks, spread over the deployments in turn
	StepsPerTask int // steps of each task
	// Busiest more tasks, the newest of all, go to the first deployment
	// (scale-0001), so that its page of history is as full at every size.
	Busiest int
	// Teams teams, scale-team-01 and on, hold the deployments in turn
	// (scale-0001 is scale-team-01's); 0 leaves them all in the team default.
	Teams int
}

// Sizes of the issue 32 benchmarks: the same 1,000 deployments with a short
// and a long history, the first with 40 tasks more in both, spread over 50
// teams (issue 35: a member of one sees 20 deployments). So every page
// measured is as full at both sizes: the first deployment's page of 20
// tasks, and its team's audit log page of 50 entries (one a task: 20 tasks
// of its 20 deployments and the 40 at 1,000 tasks).
var (
	Short = Size{Deployments: 1000, Tasks: 1000, StepsPerTask: 10, Busiest: 40, Teams: 50}
	Long  = Size{Deployments: 1000, Tasks: 100_000, StepsPerTask: 10, Busiest: 40, Teams: 50}
)

// FirstTeam is the team of scale-0001 when the size has teams.
const FirstTeam = "scale-team-01"

// AllTasks is how many tasks the size has, the busiest deployment's included.
func (s Size) AllTasks() int { return s.Tasks + s.Busiest }

// Steps is how many steps the size has.
func (s Size) Steps() int { return s.AllTasks() * s.StepsPerTask }

// Driver is the driver version every filled deployment uses; it must be in
// the catalogue already.
type Driver struct {
	Name, Version string
}

// check refuses a size Fill cannot write: every deployment has its install
// task, and every task a step.
func (s Size) check() error {
	if s.Deployments < 1 || s.Tasks < s.Deployments || s.StepsPerTask < 1 || s.Busiest < 0 {
		return fmt.Errorf("scale: size %+v: need at least one deployment, a task per deployment and a step per task", s)
	}
	if s.Teams < 0 || s.Teams > 99 {
		return fmt.Errorf("scale: size %+v: teams are numbered 01 to 99", s)
	}
	return nil
}

// Fill writes size's history in one transaction, then vacuums and analyses
// the database as autovacuum would have by then, and writes it out (a
// checkpoint), so that what is measured next does not share the machine
// with the writing of the fill. Deployment names
// (scale-0001, ...) must be free.
func Fill(ctx context.Context, pool *pgxpool.Pool, size Size, driver Driver) error {
	if err := size.check(); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := setSettings(ctx, tx, size, driver); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, fillSQL)
		return err
	})
	if err != nil {
		return fmt.Errorf("scale: fill %d tasks: %w", size.Tasks, err)
	}
	for _, stmt := range []string{"VACUUM ANALYZE", "CHECKPOINT"} {
		if _, err := pool.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("scale: %s: %w", stmt, err)
		}
	}
	return nil
}

// setSettings gives fill.sql its sizes and driver for the transaction.
func setSettings(ctx context.Context, tx pgx.Tx, size Size, driver Driver) error {
	settings := map[string]string{
		"scale.deployments":    strconv.Itoa(size.Deployments),
		"scale.tasks":          strconv.Itoa(size.Tasks),
		"scale.steps_per_task": strconv.Itoa(size.StepsPerTask),
		"scale.busiest":        strconv.Itoa(size.Busiest),
		"scale.teams":          strconv.Itoa(size.Teams),
		"scale.driver":         driver.Name,
		"scale.driver_version": driver.Version,
	}
	for name, value := range settings {
		if _, err := tx.Exec(ctx, "SELECT set_config($1, $2, true)", name, value); err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
	}
	return nil
}
