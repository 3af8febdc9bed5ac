package executor_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/styrmin/styrmin/executor"
)

// BenchmarkDispatch measures how long a committed task waits before its
// runner starts: River hears of the insert through LISTEN/NOTIFY, so the
// latency is far below its 1 s polling interval. Reported as p50 and p99.
//
//	go test -run '^$' -bench Dispatch ./executor/
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
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
}
