package handlers_test

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
	"github.com/styrmin/styrmin/drivers"
	bundled "github.com/styrmin/styrmin/drivers/catalog"
)

// The page benchmarks measure throughput over real HTTP on loopback, through
// the whole middleware stack with a signed-in session, against PostgreSQL, and
// report it as a ratio to /healthz measured in the same run, interleaved in
// rounds so that a busy machine slows both alike. docs/performance.md has the
// command and the figures.
//
//	go test -run '^$' -bench . -benchtime 2000x ./handlers/

// benchClients is how many clients send requests at once, as a load generator would.
const benchClients = 8

// benchRounds is how many times the page and /healthz take turns.
const benchRounds = 5

// Catalogue size of BenchmarkCatalogue1000: benchDrivers drivers with
// benchVersions versions each, besides the bundled drivers.
const (
	benchDrivers  = 100
	benchVersions = 10
)

// benchEnv is a running server with a signed-in client that keeps its connections.
type benchEnv struct {
	*catalogEnv
	client *http.Client
}

// newBenchEnv starts the server with the bundled drivers and signs in a user with role.
func newBenchEnv(b *testing.B, role auth.Role) *benchEnv {
	b.Helper()
	env := newCatalogEnv(b)
	client := env.signedIn(b, role)
	client.Transport = &http.Transport{MaxIdleConnsPerHost: benchClients}
	return &benchEnv{catalogEnv: env, client: client}
}

// fetch sends n GET requests for path from benchClients clients and returns
// how long they took; every answer must be 200.
func (env *benchEnv) fetch(b *testing.B, path string, n int) time.Duration {
	b.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for range benchClients {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				res, err := env.client.Get(env.URL + path)
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

// compareWithHealthz sends b.N requests for path and b.N for /healthz, in
// turns, and reports both rates and their ratio (the page's "x-healthz").
func (env *benchEnv) compareWithHealthz(b *testing.B, path string) {
	b.Helper()
	env.fetch(b, path, benchClients)       // warm up connections and caches
	env.fetch(b, "/healthz", benchClients) //
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
		page += env.fetch(b, path, n)
		b.StopTimer()
		health += env.fetch(b, "/healthz", n)
	}
	pageRate := float64(b.N) / page.Seconds()
	healthRate := float64(b.N) / health.Seconds()
	b.ReportMetric(pageRate, "req/s")
	b.ReportMetric(healthRate, "healthz-req/s")
	b.ReportMetric(pageRate/healthRate, "x-healthz")
}

// BenchmarkHealthz is the yardstick: the cheapest route, with no session.
func BenchmarkHealthz(b *testing.B) {
	env := newBenchEnv(b, auth.ReadOnly)
	env.fetch(b, "/healthz", benchClients)
	b.ResetTimer()
	elapsed := env.fetch(b, "/healthz", b.N)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}

// BenchmarkCatalogue1000 shows the catalogue holding 1,000 driver versions
// (benchDrivers drivers of benchVersions versions each) and the bundled drivers.
func BenchmarkCatalogue1000(b *testing.B) {
	env := newBenchEnv(b, auth.ReadOnly)
	importVersions(b, env.Catalog, benchDrivers, benchVersions)
	env.compareWithHealthz(b, "/drivers")
}

// BenchmarkDriverPage shows the bundled PostgreSQL driver, the largest page.
func BenchmarkDriverPage(b *testing.B) {
	env := newBenchEnv(b, auth.ReadOnly)
	env.compareWithHealthz(b, "/drivers/postgresql")
}

// BenchmarkSignedInFloor shows the upload form, a small page that reads
// nothing but the session: what every signed-in page costs at least (the
// session cookie and the user's lookup in PostgreSQL), for comparison.
func BenchmarkSignedInFloor(b *testing.B) {
	env := newBenchEnv(b, auth.Admin)
	env.compareWithHealthz(b, "/drivers/upload")
}

// BenchmarkStaticScript serves the htmx script (52 KB) as a static file: no
// session, no rendering, nothing but bytes on the wire, for comparison with
// the pages of similar size.
func BenchmarkStaticScript(b *testing.B) {
	env := newBenchEnv(b, auth.ReadOnly)
	env.compareWithHealthz(b, "/static/js/htmx.min.js")
}

// importVersions imports the bundled Hello Web driver under drivers names,
// each in versions versions.
func importVersions(b testing.TB, cat *catalog.Catalog, names, versions int) {
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
