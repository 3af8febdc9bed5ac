package executor_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/bench/scale"
	"github.com/styrmin/styrmin/executor"
)

// BenchmarkClaimAtScale measures the claim of a queued task (the transaction
// that locks the task and its deployment, takes the hold and starts the task,
// after reading the task's job: executor.ClaimNow) with a short and a long
// history of ended tasks (scale.Short, scale.Long), reported as p50 and p99.
// Each iteration queues an upgrade of the next deployment in turn (not timed),
// claims it, and ends it (not timed), so the deployment is free again.
//
//	go test -run '^$' -bench ClaimAtScale -benchtime 1000x -timeout 30m ./executor/
func BenchmarkClaimAtScale(b *testing.B) {
	for _, size := range []scale.Size{scale.Short, scale.Long} {
		b.Run(fmt.Sprintf("tasks=%d", size.Tasks), func(b *testing.B) {
			bb := setup(b)
			require.NoError(b, scale.Fill(context.Background(), bb.pool, size, scale.Driver{Name: "demo", Version: "1.0.0"}))
			e, _ := bb.worker(b, map[string]executor.Runner{"upgrade": runnerFunc{run: succeed}}, executor.Options{})
			deployments := deploymentIDs(b, bb)
			b.Run("claim", func(b *testing.B) { benchmarkClaims(b, bb, e, deployments) })
		})
	}
}

// benchmarkClaims claims b.N tasks, one at a time, on deployments in turn.
func benchmarkClaims(b *testing.B, bb bundle, e *executor.Executor, deployments []int64) {
	ctx := context.Background()
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		id := bb.enqueue(b, e, deployments[i%len(deployments)], "upgrade", nil, nil)
		b.StartTimer()
		start := time.Now()
		run, err := e.ClaimNow(ctx, id)
		latencies = append(latencies, time.Since(start))
		b.StopTimer()
		require.NoError(b, err)
		require.NotNil(b, run, "task %d starts", id)
		e.Finish(ctx, run, executor.TaskSucceeded)
		b.StartTimer()
	}
	b.StopTimer()
	reportLatencies(b, latencies)
}

// deploymentIDs are the ids of every deployment, in order.
func deploymentIDs(b *testing.B, bb bundle) []int64 {
	b.Helper()
	rows, err := bb.pool.Query(context.Background(), `SELECT id FROM deployments ORDER BY id`)
	require.NoError(b, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(b, err)
	return ids
}

// reportLatencies reports the median and 99th percentile of latencies, in milliseconds.
func reportLatencies(b *testing.B, latencies []time.Duration) {
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
}
