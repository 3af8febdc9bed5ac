package metrics

import "github.com/prometheus/client_golang/prometheus"

// DeploymentHealth is a deployment's newest health word (deployment.Health).
type DeploymentHealth struct {
	Deployment, Driver, Health string
}

var healthDesc = prometheus.NewDesc("styrmin_deployment_health",
	"1 for each live deployment, labelled with its newest health word (Healthy, Progressing, Degraded, Missing, Stopped, Unknown); one series per deployment.",
	[]string{"deployment", "driver", "health"}, nil)

// healthCollector exports the deployments' health words, read from memory per scrape.
type healthCollector struct {
	healths func() []DeploymentHealth
}

// Describe sends the health's description.
func (c healthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- healthDesc }

// Collect sends one series per deployment, its value 1.
func (c healthCollector) Collect(ch chan<- prometheus.Metric) {
	for _, h := range c.healths() {
		ch <- prometheus.MustNewConstMetric(healthDesc, prometheus.GaugeValue, 1, h.Deployment, h.Driver, h.Health)
	}
}

// WatchDeploymentHealth adds styrmin_deployment_health, read through
// healths at scrape time (the process's newest reads, no cluster call).
func (m *Metrics) WatchDeploymentHealth(healths func() []DeploymentHealth) error {
	return m.registry.Register(healthCollector{healths: healths})
}

// TurnedDegraded counts a deployment's turn to Degraded.
func (m *Metrics) TurnedDegraded(deployment string) {
	m.degraded.WithLabelValues(deployment).Inc()
}
