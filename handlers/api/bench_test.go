package api_test

import (
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/styrmin/styrmin/auth"
)

// newAPIBenchEnv starts the server with the bundled drivers and returns a
// client that calls it with the API token of a new user with role.
func newAPIBenchEnv(b *testing.B, role auth.Role) *handlerstest.BenchEnv {
	b.Helper()
	return handlerstest.TokenBench(b, handlerstest.NewCatalogEnv(b), "script", role)
}

// BenchmarkAPIMe is the smallest API call: the token's user, what every API
// call costs at least (the token's lookup in PostgreSQL, request and
// response handling), and since teams one indexed query of the user's teams.
func BenchmarkAPIMe(b *testing.B) {
	env := newAPIBenchEnv(b, auth.ReadOnly)
	env.CompareWithHealthz(b, "/api/v1/me")
}

// BenchmarkAPIDriver is one driver with its versions, as JSON: the bundled
// PostgreSQL driver, the largest.
func BenchmarkAPIDriver(b *testing.B) {
	env := newAPIBenchEnv(b, auth.ReadOnly)
	env.CompareWithHealthz(b, "/api/v1/drivers/postgresql")
}

// BenchmarkAPIDeploymentTasks5000 is the newest page of a deployment's tasks
// (20 tasks with their steps) with 5,000 tasks and 50,000 steps in its
// history, as a script polling a deployment reads it.
func BenchmarkAPIDeploymentTasks5000(b *testing.B) {
	env := newAPIBenchEnv(b, auth.ReadOnly)
	handlerstest.SeedHistory(b, env.CatalogEnv, "site")
	env.CompareWithHealthz(b, "/api/v1/tasks?deployment=site")
}
