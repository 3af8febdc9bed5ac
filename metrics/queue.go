package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/styrmin/styrmin/db"
)

// QueueStats reads the task queue's depth and age (db.Queries).
type QueueStats interface {
	QueueStats(ctx context.Context) (db.QueueStatsRow, error)
}

// queueTimeout bounds the query of one scrape: a slow database makes the
// queue series absent, never the scrape late.
const queueTimeout = 2 * time.Second

var (
	queuedDesc = prometheus.NewDesc("styrmin_tasks_queued",
		"Tasks waiting in the queue (read from the database at scrape time).", nil, nil)
	oldestDesc = prometheus.NewDesc("styrmin_tasks_queued_oldest_age_seconds",
		"How long the oldest queued task has waited; 0 when none waits.", nil, nil)
)

// queueCollector exports the task queue's depth and age, queried per scrape.
type queueCollector struct {
	stats  QueueStats
	logger *slog.Logger
}

// newQueueCollector returns the collector of the task queue read through stats.
func newQueueCollector(stats QueueStats, logger *slog.Logger) prometheus.Collector {
	return &queueCollector{stats: stats, logger: logger}
}

// Describe sends the queue's two descriptions.
func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queuedDesc
	ch <- oldestDesc
}

// Collect queries the queue, within queueTimeout; on failure it logs and
// sends nothing, so an alert on absent() or on the database notices.
func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), queueTimeout)
	defer cancel()
	s, err := c.stats.QueueStats(ctx)
	if err != nil {
		c.logger.Warn("metrics: read the task queue", "err", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(queuedDesc, prometheus.GaugeValue, float64(s.Queued))
	ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, s.OldestSeconds)
}
