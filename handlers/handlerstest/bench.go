package handlerstest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
)

// BenchClients is how many clients send requests at once, as a load generator would.
const BenchClients = 8

// benchRounds is how many times the page and /healthz take turns.
const benchRounds = 5

// BenchEnv is a running server with a signed-in client that keeps its connections.
type BenchEnv struct {
	*CatalogEnv
	Client *http.Client
}

// NewBenchEnv starts the server with the bundled drivers and signs in a user with role.
func NewBenchEnv(b *testing.B, role auth.Role) *BenchEnv {
	b.Helper()
	env := NewCatalogEnv(b)
	client := env.SignedIn(b, role)
	client.Transport = &http.Transport{MaxIdleConnsPerHost: BenchClients}
	return &BenchEnv{CatalogEnv: env, Client: client}
}

// Fetch sends n GET requests for path from BenchClients clients and returns
// how long they took; every answer must be 200.
func (env *BenchEnv) Fetch(b *testing.B, path string, n int) time.Duration {
	b.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range BenchClients {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				res, err := env.Client.Get(env.URL + path)
				if err == nil {
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if err == nil && res.StatusCode != http.StatusOK {
						err = fmt.Errorf("GET %s: status %d", path, res.StatusCode)
					}
				}
				if err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	return elapsed
}

// CompareWithHealthz sends b.N requests for path and b.N for /healthz, in
// turns, and reports both rates and their ratio (the page's "x-healthz").
func (env *BenchEnv) CompareWithHealthz(b *testing.B, path string) {
	b.Helper()
	env.Fetch(b, path, BenchClients)       // warm up connections and caches
	env.Fetch(b, "/healthz", BenchClients) //
	b.ResetTimer()
	var page, health time.Duration
	for round := range benchRounds {
		n := b.N / benchRounds
		if round == 0 {
			n += b.N % benchRounds
		}
		if n == 0 {
			continue
		}
		b.StartTimer()
		page += env.Fetch(b, path, n)
		b.StopTimer()
		health += env.Fetch(b, "/healthz", n)
	}
	pageRate := float64(b.N) / page.Seconds()
	healthRate := float64(b.N) / health.Seconds()
	b.ReportMetric(pageRate, "req/s")
	b.ReportMetric(healthRate, "healthz-req/s")
	b.ReportMetric(pageRate/healthRate, "x-healthz")
}

// ImportVersions imports the bundled Hello Web driver under drivers names,
// each in versions versions.
func ImportVersions(b testing.TB, cat *catalog.Catalog, names, versions int) {
	b.Helper()
	bundle, err := drivers.LoadBundle(context.Background(), bundled.Bundles(), "hello-web")
	require.NoError(b, err)
	for i := range names {
		for v := range versions {
			bundle.Driver.Metadata.Name = fmt.Sprintf("bench-%03d", i)
			bundle.Driver.Spec.Version = fmt.Sprintf("1.%d.0", v)
			_, err := cat.Import(context.Background(), bundle, "bench")
			require.NoError(b, err)
		}
	}
}

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
	_, err := env.Deployments.Queue(ctx, &deployment.Install{
		Driver: "hello-web", DriverVersion: "1.0.0", Name: name, AppVersion: "1.27.0", By: "bench",
		Parameters: deployment.FormInput{"site_title": "Bench", "replicas": "2"},
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
