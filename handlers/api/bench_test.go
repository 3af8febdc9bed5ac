package handlers_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

// The API benchmarks measure calls with a personal API token through the
// same harness as the pages (compareWithHealthz). docs/performance.md has
// the command and the figures.
//
//	go test -run '^$' -bench API -benchtime 2000x ./handlers/

// newAPIBenchEnv starts the server with the bundled drivers and returns a
// client that calls it with the API token of a new user with role.
func newAPIBenchEnv(b *testing.B, role auth.Role) *benchEnv {
	b.Helper()
	env := newCatalogEnv(b)
	ctx := context.Background()
	u, err := env.Users.Create(ctx, auth.NewUser{Username: "script", Password: catalogPassword, Role: role})
	require.NoError(b, err)
	token, err := env.APITokens.Create(ctx, u, "bench", nil)
	require.NoError(b, err)
	client := &http.Client{Transport: bearer{token: token.Secret, next: &http.Transport{MaxIdleConnsPerHost: benchClients}}}
	return &benchEnv{catalogEnv: env, client: client}
}

// bearer sends every request with an API token.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (t bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(req)
}

// BenchmarkAPIMe is the smallest API call: the token's user, what every API
// call costs at least (the token's lookup in PostgreSQL, request and
// response handling).
func BenchmarkAPIMe(b *testing.B) {
	env := newAPIBenchEnv(b, auth.ReadOnly)
	env.compareWithHealthz(b, "/api/v1/me")
}

// BenchmarkAPIDriver is one driver with its versions, as JSON: the bundled
// PostgreSQL driver, the largest.
func BenchmarkAPIDriver(b *testing.B) {
	env := newAPIBenchEnv(b, auth.ReadOnly)
	env.compareWithHealthz(b, "/api/v1/drivers/postgresql")
}

// BenchmarkAPIDeploymentTasks5000 is the newest page of a deployment's tasks
// (20 tasks with their steps) with 5,000 tasks and 50,000 steps in its
// history, as a script polling a deployment reads it.
func BenchmarkAPIDeploymentTasks5000(b *testing.B) {
	env := newAPIBenchEnv(b, auth.ReadOnly)
	seedHistory(b, env.catalogEnv, "site")
	env.compareWithHealthz(b, "/api/v1/tasks?deployment=site")
}
