package handlerstest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/deployment"
)

// History size of the deployment benchmarks: BenchTasks tasks of one
// deployment with BenchStepsPerTask steps each (issue 8: 5,000 tasks and
// 50,000 steps).
const (
	BenchTasks        = 5000
	BenchStepsPerTask = 10
)

// SeedHistory installs a Hello Web deployment through the service and gives
// it BenchTasks ended tasks with BenchStepsPerTask steps each, written
// straight into the tables (no cluster runs them).
func SeedHistory(b *testing.B, env *CatalogEnv, name string) {
	b.Helper()
	ctx := context.Background()
	_, err := env.Deployments.Install(ctx, deployment.InstallRequest{
		Driver: "hello-web", DriverVersion: "1.0.0", Name: name, AppVersion: "1.27.0", By: "bench",
		Parameters: map[string]string{"site_title": "Bench", "replicas": "2"},
	})
	require.NoError(b, err)
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO tasks (deployment_id, kind, status, inputs, created_by, created_at, started_at, ended_at)
		  SELECT d.id, 'stop', 'succeeded', '{"components": []}', 'bench',
		         now() - make_interval(mins => n), now() - make_interval(mins => n), now() - make_interval(mins => n) + interval '3 seconds'
		  FROM deployments d, generate_series(1, $1::int - 1) AS n WHERE d.name = $2`, []any{BenchTasks, name}},
		{`UPDATE tasks SET status = 'succeeded', started_at = coalesce(started_at, now()), ended_at = coalesce(ended_at, now()), root_task_id = id`, nil},
		{`INSERT INTO steps (task_id, position, kind, title, status, message, started_at, ended_at)
		  SELECT t.id, p, 'component', 'Scale web to 0', 'succeeded', 'Deployment web: 2 → 0 replicas', t.started_at, t.ended_at
		  FROM tasks t, generate_series(1, $1::int) AS p`, []any{BenchStepsPerTask}},
		{`UPDATE deployments SET status = 'deployed'`, nil},
		{`ANALYZE`, nil},
	} {
		_, err := env.Pool.Exec(ctx, stmt.sql, stmt.args...)
		require.NoError(b, err)
	}
	var tasks, steps int
	require.NoError(b, env.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM tasks), (SELECT count(*) FROM steps)`).Scan(&tasks, &steps))
	require.Equal(b, BenchTasks, tasks)
	require.Equal(b, BenchTasks*BenchStepsPerTask, steps)
}
