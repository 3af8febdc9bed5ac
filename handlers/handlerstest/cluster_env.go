package handlerstest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor/executortest"
)

// ClusterEnv is a running server whose deployments go to the local
// Kubernetes, with an executor working their tasks.
type ClusterEnv struct {
	URL       string
	Users     *auth.Users
	APITokens *auth.APITokens
	Catalog   *catalog.Catalog
	Service   *deployment.Service
	Cluster   *deployment.Cluster
}

// NewClusterEnv starts the real app (pages, API and action primitives, and
// a worker) on a fresh database with the bundled drivers, deploying to the
// local cluster. Driver actions do not run (NewClusterEnvWithActions).
func NewClusterEnv(t *testing.T) *ClusterEnv { return newClusterEnv(t, false) }

// NewClusterEnvWithActions is NewClusterEnv whose worker runs driver actions
// for real, calling back this server's primitives.
func NewClusterEnvWithActions(t *testing.T) *ClusterEnv { return newClusterEnv(t, true) }

// newClusterEnv builds the environment on apptest; with actions, driver
// actions run.
func newClusterEnv(t *testing.T, actions bool) *ClusterEnv {
	t.Helper()
	env := apptest.New(t, apptest.Options{Kubeconfig: kubetest.Kubeconfig(t), Work: true, Actions: actions})
	env.Start(t)
	simulated, err := env.Cluster.Kube.Simulated(context.Background())
	require.NoError(t, err)
	require.False(t, simulated, "the local cluster runs real pods")
	return ClusterEnvOf(env)
}

// ClusterEnvOf is the ClusterEnv of an environment a test built itself
// (with apptest.Options that NewClusterEnv does not set).
func ClusterEnvOf(env *apptest.Env) *ClusterEnv {
	return &ClusterEnv{URL: env.URL, Users: env.Users, APITokens: env.APITokens, Catalog: env.Catalog, Service: env.Deployments, Cluster: env.Cluster}
}

// RemoveWhenDone deletes the deployment and its namespace from the cluster
// when the test ends, whatever state it is in.
func (env *ClusterEnv) RemoveWhenDone(t *testing.T, name string) {
	t.Cleanup(func() { apptest.Uninstall(context.Background(), env.Service, env.Cluster, name, name) })
}

// APIToken creates a user with role and returns one of their API tokens.
func (env *ClusterEnv) APIToken(t *testing.T, username string, role auth.Role) string {
	t.Helper()
	u, err := env.Users.Create(context.Background(), auth.NewUser{Username: username, Password: CatalogPassword, Role: role})
	require.NoError(t, err)
	created, err := env.APITokens.Create(context.Background(), auth.Credential{User: u}, "cluster test", nil)
	require.NoError(t, err)
	return created.Secret
}

// RemoveDeploymentsWhenDone uninstalls every deployment the server knows
// of, and deletes its namespace, when the test ends, whatever state they
// are in: the Python client's test names its own.
func (env *ClusterEnv) RemoveDeploymentsWhenDone(t *testing.T) {
	t.Cleanup(func() {
		ctx := context.Background()
		o := deployment.ListOptions{IncludeDeleted: true}
		for {
			page, err := env.Service.List(ctx, o)
			if err != nil {
				t.Logf("cleaning up: %v", err)
				return
			}
			for _, d := range page.Items {
				apptest.Uninstall(ctx, env.Service, env.Cluster, d.Name, d.Namespace)
			}
			if o.After = page.Next; o.After == nil {
				return
			}
		}
	})
}

// WaitEnded waits for a task to end on the cluster.
func (env *ClusterEnv) WaitEnded(t *testing.T, name string, id int64) *deployment.Task {
	t.Helper()
	return executortest.Wait(t, func(ctx context.Context) (*deployment.Task, error) { return env.Service.Task(ctx, name, id) }, (*deployment.Task).Ended)
}
