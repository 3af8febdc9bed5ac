package metrics

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/styrmin/styrmin/executor"
)

// RiverJobs reads the counts of River's jobs (executor.Executor).
type RiverJobs interface {
	RiverJobs(ctx context.Context) (executor.RiverJobs, error)
}

var (
	riverJobsDesc = prometheus.NewDesc("styrmin_river_jobs",
		"River's jobs by state, read from River's table at scrape time (tasks and webhook deliveries).", []string{"state"}, nil)
	riverQueueDesc = prometheus.NewDesc("styrmin_river_queue_jobs",
		"River's jobs available (waiting for a worker) and running, by queue, read at scrape time.", []string{"queue", "state"}, nil)
)

// riverCollector exports River's job counts, queried per scrape.
type riverCollector struct {
	jobs   RiverJobs
	logger *slog.Logger
}

// Describe sends the two descriptions of River's series.
func (c *riverCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- riverJobsDesc
	ch <- riverQueueDesc
}

// Collect reads River's counts within queueTimeout; on failure it logs and
// sends nothing, as the queue's collector does.
func (c *riverCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), queueTimeout)
	defer cancel()
	jobs, err := c.jobs.RiverJobs(ctx)
	if err != nil {
		c.logger.Warn("metrics: read River's jobs", "err", err)
		return
	}
	for state, n := range jobs.ByState {
		ch <- prometheus.MustNewConstMetric(riverJobsDesc, prometheus.GaugeValue, float64(n), state)
	}
	for _, q := range jobs.Queues {
		ch <- prometheus.MustNewConstMetric(riverQueueDesc, prometheus.GaugeValue, float64(q.Available), q.Name, "available")
		ch <- prometheus.MustNewConstMetric(riverQueueDesc, prometheus.GaugeValue, float64(q.Running), q.Name, "running")
	}
}
