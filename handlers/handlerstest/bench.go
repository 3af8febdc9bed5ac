package handlerstest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
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
	return SignedInBench(b, NewCatalogEnv(b), role)
}

// SignedInBench is a BenchEnv on env's server whose client is signed in as a
// new user with role.
func SignedInBench(b *testing.B, env *CatalogEnv, role auth.Role) *BenchEnv {
	b.Helper()
	client := env.SignedIn(b, role)
	client.Transport = &http.Transport{MaxIdleConnsPerHost: BenchClients}
	return &BenchEnv{CatalogEnv: env, Client: client}
}

// TokenBench is a BenchEnv on env's server whose client calls with the API
// token of a new user named name with role.
func TokenBench(b *testing.B, env *CatalogEnv, name string, role auth.Role) *BenchEnv {
	b.Helper()
	ctx := context.Background()
	u, err := env.Users.Create(ctx, auth.NewUser{Username: name, Password: CatalogPassword, Role: role})
	require.NoError(b, err)
	token, err := env.APITokens.Create(ctx, auth.Credential{User: u}, "bench", nil)
	require.NoError(b, err)
	client := &http.Client{Transport: bearer{token: token.Secret, next: &http.Transport{MaxIdleConnsPerHost: BenchClients}}}
	return &BenchEnv{CatalogEnv: env, Client: client}
}

// bearer sends every request with an API token.
type bearer struct {
	token string
	next  http.RoundTripper
}

// RoundTrip sends req with the token.
func (t bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(req)
}

// Fetch sends n GET requests for path from BenchClients clients and returns
// how long they took; every answer must be 200.
func (env *BenchEnv) Fetch(b *testing.B, path string, n int) time.Duration {
	b.Helper()
	return env.fetch(b, path, n).elapsed
}

// sample is what a run of requests measured.
type sample struct {
	elapsed   time.Duration   // from the first request sent to the last answer read
	latencies []time.Duration // of each request, in no order
}

// add appends other's requests to s, as if they had run one after the other.
func (s *sample) add(other sample) {
	s.elapsed += other.elapsed
	s.latencies = append(s.latencies, other.latencies...)
}

// rate is how many requests a second s answered.
func (s sample) rate() float64 { return float64(len(s.latencies)) / s.elapsed.Seconds() }

// percentile is the latency that p percent of s's requests did not exceed, in milliseconds.
func (s sample) percentile(p int) float64 {
	sorted := slices.Clone(s.latencies)
	slices.Sort(sorted)
	return float64(sorted[(len(sorted)-1)*p/100].Microseconds()) / 1000
}

// fetch is Fetch, measuring each request's latency too.
func (env *BenchEnv) fetch(b *testing.B, path string, n int) sample {
	b.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	perClient := make([][]time.Duration, BenchClients)
	start := time.Now()
	for client := range BenchClients {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				sent := time.Now()
				if err := env.get(path); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
				perClient[client] = append(perClient[client], time.Since(sent))
			}
		})
	}
	wg.Wait()
	s := sample{elapsed: time.Since(start)}
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	for _, latencies := range perClient {
		s.latencies = append(s.latencies, latencies...)
	}
	return s
}

// get requests path and reads the answer, which must be 200.
func (env *BenchEnv) get(path string) error {
	res, err := env.Client.Get(env.URL + path)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", path, res.StatusCode)
	}
	return nil
}

// CompareWithHealthz sends b.N requests for path and b.N for /healthz, in
// turns, and reports both rates and their ratio (the page's "x-healthz").
func (env *BenchEnv) CompareWithHealthz(b *testing.B, path string) {
	b.Helper()
	env.Compare(b, path, "/healthz")
}

// Compare sends b.N requests for path and b.N for each of the baselines (bare
// routes such as /healthz), in turns, so that load from elsewhere slows them
// alike. It reports the page's rate ("req/s") and latencies ("p50-ms",
// "p99-ms"), and for each baseline its rate and p99 ("healthz-req/s",
// "healthz-p99-ms") and the page's rate as a ratio of it ("x-healthz").
func (env *BenchEnv) Compare(b *testing.B, path string, baselines ...string) {
	b.Helper()
	for _, p := range append([]string{path}, baselines...) {
		env.Fetch(b, p, BenchClients) // warm up connections and caches
	}
	b.ResetTimer()
	var page sample
	base := make([]sample, len(baselines))
	for round := range benchRounds {
		n := b.N / benchRounds
		if round == 0 {
			n += b.N % benchRounds
		}
		if n == 0 {
			continue
		}
		b.StartTimer()
		page.add(env.fetch(b, path, n))
		b.StopTimer()
		for i, p := range baselines {
			base[i].add(env.fetch(b, p, n))
		}
	}
	b.ReportMetric(page.rate(), "req/s")
	b.ReportMetric(page.percentile(50), "p50-ms")
	b.ReportMetric(page.percentile(99), "p99-ms")
	for i, p := range baselines {
		name := strings.Trim(p, "/")
		b.ReportMetric(base[i].rate(), name+"-req/s")
		b.ReportMetric(base[i].percentile(99), name+"-p99-ms")
		b.ReportMetric(page.rate()/base[i].rate(), "x-"+name)
	}
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
