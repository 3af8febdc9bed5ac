package executor_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin/executor"
)

// BenchmarkDispatch measures how long a committed task waits before its
// runner starts: River hears of the insert through LISTEN/NOTIFY, so the
// latency is far below its 1 s polling interval. Each task is committed as
// soon as the previous one has started, the case in which River's client
// leaves out its own notification (executor.Enqueue sends it). Reported as
// p50 and p99.
//
//	go test -run '^$' -bench Dispatch -benchtime 200x ./executor/
func BenchmarkDispatch(b *testing.B) {
	bb := setup(b)
	started := make(chan time.Time, 1)
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		started <- time.Now()
		return nil, nil
	}}
	e := bb.start(b, map[string]executor.Runner{"upgrade": runner}, executor.Options{})
	deployments := make([]int64, 8)
	for i := range deployments {
		deployments[i] = bb.deployment(b, "bench"+string(rune('a'+i)))
	}
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		committed := time.Now()
		bb.enqueue(b, e, deployments[i%len(deployments)], "upgrade", nil, nil)
		latencies = append(latencies, (<-started).Sub(committed))
	}
	b.StopTimer()
	reportLatencies(b, latencies)
}

// BenchmarkIdleLoad measures what an executor costs the database while no
// task runs: the transactions committed on its database per second
// (pg_stat_database.xact_commit; River's polls, heartbeats and leader
// election are each one), over b.N seconds after a start-up of 5 s.
//
//	go test -run '^$' -bench IdleLoad -benchtime 30x ./executor/
func BenchmarkIdleLoad(b *testing.B) {
	bb := setup(b)
	bb.start(b, map[string]executor.Runner{"upgrade": runnerFunc{run: succeed}}, executor.Options{})
	time.Sleep(5 * time.Second)
	before := xactCommit(b, bb.pool)
	b.ResetTimer()
	time.Sleep(time.Duration(b.N) * time.Second)
	b.StopTimer()
	after := xactCommit(b, bb.pool)
	// The first reading is one of the transactions counted.
	b.ReportMetric(float64(after-before-1)/float64(b.N), "xact/s")
}

// xactCommit is how many transactions have committed on the pool's database.
func xactCommit(b *testing.B, pool *pgxpool.Pool) int64 {
	b.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), `SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}
