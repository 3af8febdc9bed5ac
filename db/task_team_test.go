package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
)

// TestATasksTeamIsItsDeploymentsEvenDuringAMove inserts a task of a
// deployment while a move of that deployment to another team is under way:
// the insert waits for the move and takes the team moved to, and the move
// carries every earlier task along. A task of another team than its
// deployment's is refused.
func TestATasksTeamIsItsDeploymentsEvenDuringAMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	var deploymentID, beta int64
	require.NoError(t, pool.QueryRow(ctx, `
WITH v AS (INSERT INTO driver_versions (name, version, title, spec, digest, bundle)
           VALUES ('app', '1.0.0', 'App', '{}', 'sha256:0', '\x00') RETURNING name),
     d AS (INSERT INTO deployments (name, namespace, driver_name, driver_version, app_version, created_by)
           SELECT 'orders', 'shop', name, '1.0.0', '1.0', 'admin' FROM v RETURNING id),
     b AS (INSERT INTO teams (name) VALUES ('beta') RETURNING id)
SELECT d.id, b.id FROM d, b`).Scan(&deploymentID, &beta))
	q := db.New(pool)
	insert := func() (db.Task, error) {
		return q.InsertTask(ctx, db.InsertTaskParams{DeploymentID: deploymentID, Kind: "upgrade", Inputs: []byte("{}"), CreatedBy: "admin"})
	}
	before, err := insert()
	require.NoError(t, err)
	require.NotEqual(t, beta, before.TeamID, "a new deployment is in the default team")

	move, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer move.Rollback(ctx) //nolint:errcheck // committed below
	moved, err := db.New(move).MoveDeployment(ctx, db.MoveDeploymentParams{Team: "beta", Name: "orders"})
	require.NoError(t, err)
	require.True(t, moved.Moved)
	type result struct {
		task db.Task
		err  error
	}
	inserted := make(chan result, 1)
	go func() {
		task, err := insert()
		inserted <- result{task, err}
	}()
	require.Eventually(t, func() bool {
		var waiting bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		    WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting))
		return waiting
	}, 10*time.Second, 10*time.Millisecond, "the insert waits for the move")
	require.NoError(t, move.Commit(ctx))
	during := <-inserted
	require.NoError(t, during.err)
	assert.Equal(t, beta, during.task.TeamID, "the task inserted during the move")
	earlier, err := q.GetTask(ctx, before.ID)
	require.NoError(t, err)
	assert.Equal(t, beta, earlier.TeamID, "the task inserted before the move")

	_, err = pool.Exec(ctx, `UPDATE tasks SET team_id = (SELECT id FROM teams WHERE name = 'default') WHERE id = $1`, before.ID)
	assert.ErrorContains(t, err, "tasks_deployment_team_fkey")
}
