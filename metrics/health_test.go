package metrics_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/metrics"
)

func TestDeploymentHealthIsOneSeriesPerDeploymentWithItsNewestWord(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	var mu sync.Mutex
	healths := []metrics.DeploymentHealth{{Deployment: "shop", Driver: "hello-web", Health: "Healthy"}, {Deployment: "db", Driver: "postgresql", Health: "Degraded"}}
	require.NoError(t, m.WatchDeploymentHealth(func() []metrics.DeploymentHealth {
		mu.Lock()
		defer mu.Unlock()
		return healths
	}))
	url := serveMetrics(t, m)

	families := scrape(t, url)
	v, ok := value(families, "styrmin_deployment_health", map[string]string{"deployment": "db", "driver": "postgresql", "health": "Degraded"})
	require.True(t, ok)
	require.Equal(t, 1.0, v)
	require.Len(t, families["styrmin_deployment_health"].GetMetric(), 2)

	mu.Lock()
	healths = []metrics.DeploymentHealth{{Deployment: "db", Driver: "postgresql", Health: "Healthy"}}
	mu.Unlock()
	families = scrape(t, url)
	require.Len(t, families["styrmin_deployment_health"].GetMetric(), 1, "a deleted deployment's series goes, and a word replaces the last")
	_, ok = value(families, "styrmin_deployment_health", map[string]string{"deployment": "db", "driver": "postgresql", "health": "Healthy"})
	require.True(t, ok)
}

func TestDeploymentDegradedCountsEachTurnPerDeployment(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	url := serveMetrics(t, m)
	m.TurnedDegraded("shop")
	m.TurnedDegraded("shop")
	m.TurnedDegraded("db")

	families := scrape(t, url)
	v, ok := value(families, "styrmin_deployment_degraded_total", map[string]string{"deployment": "shop"})
	require.True(t, ok)
	require.Equal(t, 2.0, v)
	v, ok = value(families, "styrmin_deployment_degraded_total", map[string]string{"deployment": "db"})
	require.True(t, ok)
	require.Equal(t, 1.0, v)
}
