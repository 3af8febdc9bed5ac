package web_test

import (
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/styrmin/styrmin/auth"
)

// BenchmarkDeploymentPage5000Tasks is a deployment's page (newest 20 tasks
// with their steps, parameters, revisions; no cluster configured, so nothing
// is read from Kubernetes) with 5,000 tasks and 50,000 steps in its history.
func BenchmarkDeploymentPage5000Tasks(b *testing.B) {
	env := handlerstest.NewBenchEnv(b, auth.ReadOnly)
	handlerstest.SeedHistory(b, env.CatalogEnv, "site")
	env.CompareWithHealthz(b, "/deployments/site")
}

// BenchmarkDeploymentList5000Tasks is the deployments list, whose row shows
// the last of 5,000 tasks.
func BenchmarkDeploymentList5000Tasks(b *testing.B) {
	env := handlerstest.NewBenchEnv(b, auth.ReadOnly)
	handlerstest.SeedHistory(b, env.CatalogEnv, "site")
	env.CompareWithHealthz(b, "/deployments")
}
