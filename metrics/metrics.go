// Package metrics holds Styrmin's Prometheus series (all named styrmin_*),
// the collectors behind them and the /metrics endpoint that exports them.
// The parts that count (handlers, executor, auth, deployment) take the small
// observer each declares; Metrics implements them all. No label carries what
// a user typed: routes are patterns, kinds and outcomes are fixed words.
package metrics

import (
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/styrmin/styrmin/lru"
	"github.com/styrmin/styrmin/version"
)

// Metrics is one process's series, on their own registry.
type Metrics struct {
	registry     *prometheus.Registry
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	tasksStarted *prometheus.CounterVec
	tasksEnded   *prometheus.CounterVec
	taskDuration *prometheus.HistogramVec
	tasksPruned  prometheus.Counter
	signins      *prometheus.CounterVec
	actionRuns   *prometheus.CounterVec
	jobs         *prometheus.CounterVec
	degraded     *prometheus.CounterVec
	caches       *cacheCollector
	// ready is set once the process does its work (SetReady); /readyz says so.
	ready atomic.Bool
}

// taskBuckets are the task durations histograms count, in seconds: a task
// takes from a second (a failed check) to many minutes (a large upgrade).
var taskBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600}

// New returns the process's series with the Go runtime's and the process's
// standard collectors and the build's information.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "styrmin_http_requests_total", Help: "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "styrmin_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern and method.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
		tasksStarted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "styrmin_tasks_started_total", Help: "Tasks this process started running, by kind.",
		}, []string{"kind"}),
		tasksEnded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "styrmin_tasks_ended_total", Help: "Tasks this process ended, by kind and outcome (succeeded, failed, canceled).",
		}, []string{"kind", "outcome"}),
		taskDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "styrmin_task_duration_seconds", Help: "Time from a task's start to its end, by kind and outcome.",
			Buckets: taskBuckets,
		}, []string{"kind", "outcome"}),
		tasksPruned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "styrmin_tasks_pruned_total", Help: "Ended tasks this process deleted with their steps and logs, past the task retention.",
		}),
		signins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "styrmin_signin_refusals_total", Help: "Sign-in attempts refused, by reason (failed: wrong credentials; throttled: too many failures).",
		}, []string{"reason"}),
		actionRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "styrmin_action_runs_total", Help: "Driver actions run, by outcome (succeeded, failed).",
		}, []string{"outcome"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "styrmin_action_jobs_total", Help: "Kubernetes Jobs that actions ran, by outcome (succeeded, failed).",
		}, []string{"outcome"}),
		degraded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "styrmin_deployment_degraded_total", Help: "Times a deployment's health turned Degraded from another known word, counted by the process that recorded the turn (once across processes); one series per deployment.",
		}, []string{"deployment"}),
		caches: &cacheCollector{caches: map[string]func() lru.Stats{}},
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(version.Get()),
		m.requests, m.latency, m.tasksStarted, m.tasksEnded, m.taskDuration, m.tasksPruned, m.signins, m.actionRuns, m.jobs, m.degraded, m.caches,
	)
	return m
}

// buildInfo is the gauge styrmin_build_info, 1, labelled with the build's version, revision and Go version.
func buildInfo(b version.Info) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "styrmin_build_info", Help: "Always 1, labelled with the running build's version, source revision and Go version.",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "goversion": b.GoVersion},
	})
	g.Set(1)
	return g
}

// WatchQueue adds the task queue's depth and age, read through stats, and
// River's job counts, read through jobs, at every scrape.
func (m *Metrics) WatchQueue(stats QueueStats, jobs RiverJobs, logger *slog.Logger) error {
	if err := m.registry.Register(newQueueCollector(stats, logger)); err != nil {
		return fmt.Errorf("metrics: watch the queue: %w", err)
	}
	if err := m.registry.Register(&riverCollector{jobs: jobs, logger: logger}); err != nil {
		return fmt.Errorf("metrics: watch River's jobs: %w", err)
	}
	return nil
}

// Gatherer is what the registry exports; tests read it.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.registry }

// Handler serves the series in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// RequestServed counts an HTTP request answered on route (its pattern) with
// status, which took took.
func (m *Metrics) RequestServed(route, method string, status int, took time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route, method).Observe(took.Seconds())
}

// TaskStarted counts a task of kind that started running here.
func (m *Metrics) TaskStarted(kind string) {
	m.tasksStarted.WithLabelValues(kind).Inc()
}

// TaskEnded counts a task of kind that ended with outcome after running for took.
func (m *Metrics) TaskEnded(kind, outcome string, took time.Duration) {
	m.tasksEnded.WithLabelValues(kind, outcome).Inc()
	m.taskDuration.WithLabelValues(kind, outcome).Observe(took.Seconds())
}

// TasksPruned counts n tasks that the task retention deleted.
func (m *Metrics) TasksPruned(n int64) {
	m.tasksPruned.Add(float64(n))
}

// SigninRefused counts a refused sign-in: reason is "failed" or "throttled".
func (m *Metrics) SigninRefused(reason string) {
	m.signins.WithLabelValues(reason).Inc()
}

// ActionRan counts a driver action's run.
func (m *Metrics) ActionRan(succeeded bool) {
	m.actionRuns.WithLabelValues(outcome(succeeded)).Inc()
}

// JobRan counts an action's Kubernetes Job that ended.
func (m *Metrics) JobRan(succeeded bool) {
	m.jobs.WithLabelValues(outcome(succeeded)).Inc()
}

// outcome is the label of a run that succeeded or not.
func outcome(succeeded bool) string {
	if succeeded {
		return "succeeded"
	}
	return "failed"
}
