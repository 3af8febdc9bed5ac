package handlerstest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/release"
)

// APIToken creates a user with role and returns one of their API tokens.
func (env *ClusterEnv) APIToken(t *testing.T, username string, role auth.Role) string {
	t.Helper()
	u, err := env.Users.Create(context.Background(), auth.NewUser{Username: username, Password: CatalogPassword, Role: role})
	require.NoError(t, err)
	created, err := env.APITokens.Create(context.Background(), u, "cluster test", nil)
	require.NoError(t, err)
	return created.Secret
}

// RemoveDeploymentsWhenDone uninstalls every deployment the server knows
// of, and deletes its namespace, when the test ends, whatever state they
// are in: the Python client's test names its own.
func (env *ClusterEnv) RemoveDeploymentsWhenDone(t *testing.T) {
	t.Cleanup(func() {
		ctx := context.Background()
		deployments, err := env.Service.List(ctx, true)
		if err != nil {
			t.Logf("cleaning up: %v", err)
			return
		}
		for _, d := range deployments {
			_, _ = env.Cluster.Releases.Uninstall(ctx, release.UninstallOptions{Namespace: d.Namespace, Name: d.Name, IgnoreNotFound: true, Timeout: time.Minute})
			_ = env.Cluster.Kube.DeleteNamespace(ctx, d.Namespace)
		}
	})
}
