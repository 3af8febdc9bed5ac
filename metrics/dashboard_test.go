package metrics_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/lru"
	"github.com/styrmin/styrmin/metrics"
)

// dashboard is the Grafana dashboard built on the series.
const dashboard = "../deploy/grafana/styrmin.json"

// fixedQueue is a task queue that always has the same depth.
type fixedQueue struct{}

func (fixedQueue) QueueStats(context.Context) (db.QueueStatsRow, error) {
	return db.QueueStatsRow{Queued: 3, OldestSeconds: 42}, nil
}

// fixedRiver is River with the same jobs always.
type fixedRiver struct{}

func (fixedRiver) RiverJobs(context.Context) (executor.RiverJobs, error) {
	return executor.RiverJobs{
		ByState: map[string]int{"available": 1, "running": 2, "retryable": 1},
		Queues:  []executor.RiverQueue{{Name: "default", Available: 1, Running: 2}},
	}, nil
}

// exported returns the families a process exports once every kind of
// event happened, with their label names; a histogram also exports its
// _bucket, _sum and _count series.
func exported(t *testing.T) map[string]map[string]bool {
	t.Helper()
	m := metrics.New()
	require.NoError(t, m.WatchQueue(fixedQueue{}, fixedRiver{}, slog.New(slog.NewTextHandler(io.Discard, nil))))
	m.WatchCache("driver_pages", func() lru.Stats { return lru.Stats{Hits: 3, Misses: 1} })
	m.RequestServed("/signin", "POST", 401, time.Millisecond)
	m.TaskStarted("install")
	m.TaskEnded("install", "succeeded", time.Second)
	m.SigninRefused("throttled")
	m.ActionRan(true)
	m.JobRan(false)
	families, err := m.Gatherer().Gather()
	require.NoError(t, err)
	names := map[string]map[string]bool{}
	for _, f := range families {
		labels := map[string]bool{"job": true, "instance": true, "le": f.GetType() == dto.MetricType_HISTOGRAM}
		for _, series := range f.GetMetric() {
			for _, l := range series.GetLabel() {
				labels[l.GetName()] = true
			}
		}
		names[f.GetName()] = labels
		if f.GetType() == dto.MetricType_HISTOGRAM {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+suffix] = labels
			}
		}
	}
	return names
}

// queries returns every PromQL query of the dashboard: the panels'
// targets and the variables' label_values.
func queries(t *testing.T, node any) []string {
	t.Helper()
	var out []string
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if s, ok := v.(string); ok && (k == "expr" || (k == "query" && strings.HasPrefix(s, "label_values("))) {
				out = append(out, s)
				continue
			}
			out = append(out, queries(t, v)...)
		}
	case []any:
		for _, v := range n {
			out = append(out, queries(t, v)...)
		}
	}
	return out
}

var (
	// seriesName finds the series a query reads: Styrmin's, Go's and the process's.
	seriesName = regexp.MustCompile(`\b(?:styrmin|go|process)_[a-zA-Z0-9_]+\b`)
	// byLabels finds the labels a query aggregates by.
	byLabels = regexp.MustCompile(`\bby \(([^)]*)\)`)
)

// TestDashboardReadsOnlyExportedSeries: every query of the Grafana
// dashboard names only series the registry exports, and aggregates only by
// labels they carry; so a renamed series breaks this test, not the dashboard.
func TestDashboardReadsOnlyExportedSeries(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(dashboard)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	require.Equal(t, "styrmin", doc["uid"])
	exp := exported(t)
	all := queries(t, doc)
	require.GreaterOrEqual(t, len(all), 10, "the dashboard has its panels")
	for _, q := range all {
		names := seriesName.FindAllString(q, -1)
		require.NotEmpty(t, names, "query %q reads a series", q)
		for _, name := range names {
			labels, ok := exp[name]
			require.True(t, ok, "query %q reads %s, which is not exported", q, name)
			for _, by := range byLabels.FindAllStringSubmatch(q, -1) {
				for _, l := range strings.Split(by[1], ",") {
					require.True(t, labels[strings.TrimSpace(l)], "query %q aggregates by %q, a label %s lacks", q, strings.TrimSpace(l), name)
				}
			}
		}
	}
}

// stalledQueue is a database that does not answer until the query's context ends.
type stalledQueue struct{}

func (stalledQueue) QueueStats(ctx context.Context) (db.QueueStatsRow, error) {
	<-ctx.Done()
	return db.QueueStatsRow{}, ctx.Err()
}

func (stalledQueue) RiverJobs(ctx context.Context) (executor.RiverJobs, error) {
	<-ctx.Done()
	return executor.RiverJobs{}, ctx.Err()
}

// TestQueueSeriesAbsentWhenTheDatabaseStalls: a scrape while PostgreSQL
// does not answer ends within the queue's time limit, without the queue's
// and River's series and with every other.
func TestQueueSeriesAbsentWhenTheDatabaseStalls(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	require.NoError(t, m.WatchQueue(stalledQueue{}, stalledQueue{}, slog.New(slog.NewTextHandler(io.Discard, nil))))
	m.TaskStarted("install")
	families, err := m.Gatherer().Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	require.False(t, names["styrmin_tasks_queued"])
	require.False(t, names["styrmin_tasks_queued_oldest_age_seconds"])
	require.False(t, names["styrmin_river_jobs"])
	require.False(t, names["styrmin_river_queue_jobs"])
	require.True(t, names["styrmin_tasks_started_total"])
	require.True(t, names["go_goroutines"])
}
