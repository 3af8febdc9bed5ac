package scale_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/bench/scale"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
)

// demo is the driver version the tests' deployments use.
var demo = scale.Driver{Name: "demo", Version: "1.0.0"}

// newDatabase is a fresh database whose catalogue holds demo.
func newDatabase(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := dbtest.New(t)
	_, err := db.New(pool).InsertDriverVersion(context.Background(), db.InsertDriverVersionParams{
		Name: demo.Name, Version: demo.Version, Title: "Demo", Labels: []byte("{}"), Spec: []byte("{}"),
		Digest: "sha256:demo", Bundle: []byte{},
	})
	require.NoError(t, err)
	return pool
}

func TestFillWritesTheHistoryOfItsSize(t *testing.T) {
	t.Parallel()
	pool := newDatabase(t)
	size := scale.Size{Deployments: 3, Tasks: 40, StepsPerTask: 4, Busiest: 5}
	require.NoError(t, scale.Fill(context.Background(), pool, size, demo))

	var deployments, tasks, steps, actions, logs, audit int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM deployments WHERE holder_task_id IS NULL),
		(SELECT count(*) FROM tasks WHERE root_task_id = id AND parent_step_id IS NULL AND ended_at IS NOT NULL),
		(SELECT count(*) FROM steps),
		(SELECT count(*) FROM tasks WHERE kind = 'action'),
		(SELECT count(*) FROM step_logs),
		(SELECT count(*) FROM audit_entries)`).Scan(&deployments, &tasks, &steps, &actions, &logs, &audit))
	require.Equal(t, size.Deployments, deployments, "no deployment is held")
	require.Equal(t, size.AllTasks(), tasks, "every task is top-level and ended")
	require.Equal(t, size.Steps(), steps)
	require.Positive(t, actions)
	require.Equal(t, 4*actions, logs, "the hook step of each action has its log lines")
	require.Equal(t, size.AllTasks(), audit, "each task has its audit entry")

	var busiest string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT string_agg(DISTINCT d.name, ',') FROM
		(SELECT deployment_id FROM tasks ORDER BY created_at DESC LIMIT 5) t JOIN deployments d ON d.id = t.deployment_id`).Scan(&busiest))
	require.Equal(t, "scale-0001", busiest, "the busiest deployment's tasks are the newest")
}

func TestFillGivesEveryDeploymentItsInstallFirstThenEveryKind(t *testing.T) {
	t.Parallel()
	pool := newDatabase(t)
	require.NoError(t, scale.Fill(context.Background(), pool, scale.Size{Deployments: 5, Tasks: 35, StepsPerTask: 2}, demo))

	var wrong int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM deployments d
		WHERE (SELECT kind FROM tasks WHERE deployment_id = d.id ORDER BY id LIMIT 1) IS DISTINCT FROM 'install'`).Scan(&wrong))
	require.Zero(t, wrong)
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM deployments d
		WHERE (SELECT count(DISTINCT kind) FROM tasks WHERE deployment_id = d.id) <> 6`).Scan(&wrong))
	require.Zero(t, wrong, "each deployment's seven tasks are of the six kinds but delete")
	var newestFirst bool
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT (SELECT id FROM tasks ORDER BY created_at DESC LIMIT 1) = (SELECT max(id) FROM tasks)`).Scan(&newestFirst))
	require.True(t, newestFirst, "task ids grow with time, as the pages' ordering expects")
}

func TestFillRefusesADeploymentWithoutTasks(t *testing.T) {
	t.Parallel()
	err := scale.Fill(context.Background(), nil, scale.Size{Deployments: 10, Tasks: 5, StepsPerTask: 1}, demo)
	require.ErrorContains(t, err, "a task per deployment")
}

func TestFillSpreadsTheDeploymentsOverItsTeamsWithTheirAuditEntries(t *testing.T) {
	t.Parallel()
	pool := newDatabase(t)
	require.NoError(t, scale.Fill(context.Background(), pool, scale.Size{Deployments: 6, Tasks: 12, StepsPerTask: 1, Teams: 3}, demo))

	var perTeam []int
	var firstTeam string
	var auditElsewhere int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT
		(SELECT array_agg(n ORDER BY name) FROM (SELECT tm.name, count(*) AS n FROM deployments d
			JOIN teams tm ON tm.id = d.team_id GROUP BY tm.name) c),
		(SELECT tm.name FROM deployments d JOIN teams tm ON tm.id = d.team_id WHERE d.name = 'scale-0001'),
		(SELECT count(*) FROM audit_entries a JOIN deployments d ON d.name = a.target_name
			WHERE a.team_id IS DISTINCT FROM d.team_id)`).Scan(&perTeam, &firstTeam, &auditElsewhere))
	require.Equal(t, []int{2, 2, 2}, perTeam, "the deployments go to the three teams in turn, none to default")
	require.Equal(t, scale.FirstTeam, firstTeam)
	require.Zero(t, auditElsewhere, "each audit entry has its deployment's team, as a member's audit log reads it")
}

func TestFillWithoutTeamsLeavesEveryDeploymentInTheDefaultTeam(t *testing.T) {
	t.Parallel()
	pool := newDatabase(t)
	require.NoError(t, scale.Fill(context.Background(), pool, scale.Size{Deployments: 2, Tasks: 2, StepsPerTask: 1}, demo))

	var teams []string
	require.NoError(t, pool.QueryRow(context.Background(),
		`SELECT array_agg(DISTINCT tm.name) FROM deployments d JOIN teams tm ON tm.id = d.team_id`).Scan(&teams))
	require.Equal(t, []string{"default"}, teams)
}
