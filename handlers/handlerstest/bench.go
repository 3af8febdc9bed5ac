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
	"github.com/styrmin/styrmin/drivers"
	bundled "github.com/styrmin/styrmin/drivers/catalog"
)

// BenchClients is how many clients send requests at once, as a load generator would.
const BenchClients = 8

// BenchRounds is how many times the page and /healthz take turns.
const BenchRounds = 5

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
	for round := range BenchRounds {
		n := b.N / BenchRounds
		if round == 0 {
			n += b.N % BenchRounds
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
