package db_test

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
)

// TestATaskPageReadsAPageInEveryPlan runs the task lists' queries on the
// long history, its 200 deployments spread over teams 1 and 2, under
// EXPLAIN ANALYZE: first as a prepared statement's first run (a custom plan,
// made for its values), then in the generic plan PostgreSQL switches a
// prepared statement to after five runs. In both the rows read from tasks
// stay within the page, or for a member a page per team (or per deployment
// of the name) and the page itself, however deep the page and however long
// the history.
func TestATaskPageReadsAPageInEveryPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	_, err := pool.Exec(ctx, history+`
INSERT INTO teams (name) VALUES ('beta');
UPDATE deployments SET team_id = (SELECT id FROM teams WHERE name = 'beta') WHERE id % 2 = 0;
ANALYZE;`)
	require.NoError(t, err)
	queries := generatedQueries(t)
	const page = 21
	for _, c := range []struct {
		name  string
		query string
		args  []any
		bound int
	}{
		{"a deployment's page deep in its history", "ListTasks", []any{int64(8), int64(10008), int32(page)}, page},
		{"everyone's newest page", "FindTasks", []any{int64(math.MaxInt64), "", "", int32(page)}, page},
		{"everyone's page deep in the history", "FindTasks", []any{int64(10000), "", "", int32(page)}, page},
		{"everyone's failed tasks", "FindTasks", []any{int64(math.MaxInt64), "failed", "", int32(page)}, page},
		{"a deployment's page, by its name", "FindDeploymentTasks", []any{int64(math.MaxInt64), "", "", int32(page), "app-8", false, []int64(nil)}, page + page},
		{"a member's newest page, of both their teams", "FindTeamTasks", []any{[]int64{1, 2}, int64(math.MaxInt64), "", "", int32(page)}, 2*page + page},
		{"a member's page deep in their team's history", "FindTeamTasks", []any{[]int64{2}, int64(10000), "", "", int32(page)}, page + page},
		{"a member's newest upgrades", "FindTeamTasks", []any{[]int64{1}, int64(math.MaxInt64), "", "upgrade", int32(page)}, page + page},
		{"a member's page of a deployment of their team", "FindDeploymentTasks", []any{int64(math.MaxInt64), "", "", int32(page), "app-8", true, []int64{2}}, page + page},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := pool.Acquire(ctx)
			require.NoError(t, err)
			defer conn.Release()
			defer conn.Exec(ctx, "DISCARD ALL") //nolint:errcheck // the next user of the connection gets it as new
			_, err = conn.Exec(ctx, "PREPARE member_page AS "+queries[c.query])
			require.NoError(t, err)
			custom := tasksRead(t, conn, c.args)
			_, err = conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan")
			require.NoError(t, err)
			generic := tasksRead(t, conn, c.args)
			assert.Positive(t, custom, "the page is not empty")
			assert.LessOrEqual(t, custom, c.bound, "rows of tasks read in the custom plan")
			assert.LessOrEqual(t, generic, c.bound, "rows of tasks read in the generic plan")
		})
	}
}

// tasksRead runs the prepared statement member_page with args under EXPLAIN
// ANALYZE and returns how many rows its plan read from tasks, over every
// loop of every node that reads the table.
func tasksRead(t *testing.T, conn *pgxpool.Conn, args []any) int {
	t.Helper()
	var plan []byte
	require.NoError(t, conn.QueryRow(context.Background(),
		"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE member_page("+placeholders(len(args))+")",
		append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...).Scan(&plan))
	var top []struct{ Plan analyzedNode }
	require.NoError(t, json.Unmarshal(plan, &top))
	read := 0
	var walk func(n analyzedNode)
	walk = func(n analyzedNode) {
		if n.RelationName == "tasks" {
			read += int(n.ActualRows * n.ActualLoops)
		}
		for _, child := range n.Plans {
			walk(child)
		}
	}
	walk(top[0].Plan)
	return read
}

// placeholders returns "$1, $2, ..." up to $n.
func placeholders(n int) string {
	p := make([]string, n)
	for i := range p {
		p[i] = "$" + strconv.Itoa(i+1)
	}
	return strings.Join(p, ", ")
}

// analyzedNode is the part of a node of EXPLAIN (ANALYZE, FORMAT JSON) that
// tasksRead reads.
type analyzedNode struct {
	RelationName string         `json:"Relation Name"`
	ActualRows   float64        `json:"Actual Rows"`
	ActualLoops  float64        `json:"Actual Loops"`
	Plans        []analyzedNode `json:"Plans"`
}

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
	insert := func() db.Task {
		task, err := q.InsertTask(ctx, db.InsertTaskParams{DeploymentID: deploymentID, Kind: "upgrade", Inputs: []byte("{}"), CreatedBy: "admin"})
		require.NoError(t, err)
		return task
	}
	before := insert()
	require.NotEqual(t, beta, before.TeamID, "a new deployment is in the default team")

	move, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer move.Rollback(ctx) //nolint:errcheck // committed below
	moved, err := db.New(move).MoveDeployment(ctx, db.MoveDeploymentParams{Team: "beta", Name: "orders"})
	require.NoError(t, err)
	require.True(t, moved.Moved)
	inserted := make(chan db.Task)
	go func() { inserted <- insert() }()
	require.Eventually(t, func() bool {
		var waiting bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		    WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting))
		return waiting
	}, 10*time.Second, 10*time.Millisecond, "the insert waits for the move")
	require.NoError(t, move.Commit(ctx))
	assert.Equal(t, beta, (<-inserted).TeamID, "the task inserted during the move")
	earlier, err := q.GetTask(ctx, before.ID)
	require.NoError(t, err)
	assert.Equal(t, beta, earlier.TeamID, "the task inserted before the move")

	_, err = pool.Exec(ctx, `UPDATE tasks SET team_id = (SELECT id FROM teams WHERE name = 'default') WHERE id = $1`, before.ID)
	assert.ErrorContains(t, err, "tasks_deployment_team_fkey")
}
