package metrics_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/metrics"
	"github.com/styrmin/styrmin/metrics/metricstest"
)

// dashboard is the Grafana dashboard built on the series.
const dashboard = "../deploy/grafana/styrmin.json"

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
	exp := metricstest.Exported(t)
	all := queries(t, doc)
	require.GreaterOrEqual(t, len(all), 10, "the dashboard has its panels")
	for _, q := range all {
		metricstest.RequireExported(t, exp, q)
	}
}

// TestDashboardPanelsFollowTheJobVariable: every panel's query reads only
// the jobs picked in the $job variable, so that the dashboard shows one
// release of Styrmin at a time where Prometheus scrapes several.
func TestDashboardPanelsFollowTheJobVariable(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(dashboard)
	require.NoError(t, err)
	var doc struct {
		Panels []map[string]any `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	n := 0
	for _, p := range doc.Panels {
		for _, q := range queries(t, p) {
			metricstest.RequireEverySelectorHas(t, q, `job=~"$job"`)
			n++
		}
	}
	require.GreaterOrEqual(t, n, 10, "the panels' queries were found")
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
