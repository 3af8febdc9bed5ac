// Package metricstest checks PromQL written elsewhere (the Grafana
// dashboard, the chart's alerts) against the series the metrics registry
// exports, so that a renamed series or label breaks a test, not a query.
package metricstest

import (
	"context"
	"io"
	"log/slog"
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

// fixedQueue is a task queue and River that always have the same jobs.
type fixedQueue struct{}

func (fixedQueue) QueueStats(context.Context) (db.QueueStatsRow, error) {
	return db.QueueStatsRow{Queued: 3, OldestSeconds: 42}, nil
}

func (fixedQueue) RiverJobs(context.Context) (executor.RiverJobs, error) {
	return executor.RiverJobs{
		ByState: map[string]int{"available": 1, "running": 2, "retryable": 1},
		Queues:  []executor.RiverQueue{{Name: "default", Available: 1, Running: 2}},
	}, nil
}

// Exported returns the families a process exports once every kind of
// event happened, with their label names (Prometheus's job and instance
// included); a histogram also exports its _bucket, _sum and _count series.
func Exported(t *testing.T) map[string]map[string]bool {
	t.Helper()
	m := metrics.New()
	require.NoError(t, m.WatchQueue(fixedQueue{}, fixedQueue{}, slog.New(slog.NewTextHandler(io.Discard, nil))))
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

var (
	// seriesName finds the series a query reads: Styrmin's, Go's and the process's.
	seriesName = regexp.MustCompile(`\b(?:styrmin|go|process)_[a-zA-Z0-9_]+\b`)
	// byLabels finds the labels a query aggregates by.
	byLabels = regexp.MustCompile(`\bby \(([^)]*)\)`)
	// selector finds each series a query reads with its label matchers;
	// Prometheus's own up included.
	selector = regexp.MustCompile(`\b((?:styrmin|go|process)_[a-zA-Z0-9_]+|up)\b(\{[^}]*\})?`)
)

// RequireExported fails the test unless query reads at least one series,
// every series it reads is in exported, and it aggregates only by labels
// those series carry.
func RequireExported(t *testing.T, exported map[string]map[string]bool, query string) {
	t.Helper()
	names := seriesName.FindAllString(query, -1)
	require.NotEmpty(t, names, "query %q reads a series", query)
	for _, name := range names {
		labels, ok := exported[name]
		require.True(t, ok, "query %q reads %s, which is not exported", query, name)
		for _, by := range byLabels.FindAllStringSubmatch(query, -1) {
			for _, l := range strings.Split(by[1], ",") {
				require.True(t, labels[strings.TrimSpace(l)], "query %q aggregates by %q, a label %s lacks", query, strings.TrimSpace(l), name)
			}
		}
	}
}

// RequireEverySelectorHas fails the test unless every series query reads
// carries matcher (such as job=~"$job") among its label matchers.
func RequireEverySelectorHas(t *testing.T, query, matcher string) {
	t.Helper()
	found := selector.FindAllStringSubmatch(query, -1)
	require.NotEmpty(t, found, "query %q reads a series", query)
	for _, m := range found {
		inner := strings.TrimSuffix(strings.TrimPrefix(m[2], "{"), "}")
		require.Contains(t, strings.Split(inner, ","), matcher, "query %q reads %s without %s", query, m[1], matcher)
	}
}
