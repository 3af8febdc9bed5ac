package handlerstest

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/secrets"
)

// addTestDeps fills in the dependencies of the pages beyond sign-in and
// users, so that every route in the permission table has what it needs. The
// deployment service queues tasks that nothing runs, and has no cluster.
func addTestDeps(t *testing.T, pool *pgxpool.Pool, deps *handlers.Deps) {
	t.Helper()
	deps.Drivers = catalog.New(pool)
	svc := newTestDeployments(t, pool)
	deps.Deployments = svc
	deps.Primitives = svc
	deps.APITokens = auth.NewAPITokens(pool)
}

// newTestDeployments is a deployment service on the test's database with no
// cluster, queueing tasks that nothing runs.
func newTestDeployments(t *testing.T, pool *pgxpool.Pool) *deployment.Service {
	t.Helper()
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	queue, err := executor.New(pool, executor.Options{})
	require.NoError(t, err)
	return deployment.New(deployment.Config{Pool: pool, Catalog: catalog.New(pool), Queue: queue, Box: box})
}
