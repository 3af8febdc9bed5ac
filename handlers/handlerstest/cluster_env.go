package handlerstest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/deployment"
	bundled "github.com/styrmin/styrmin/drivers/catalog"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/kubelocal/kubetest"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/sdk"
	"github.com/styrmin/styrmin/secrets"
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

// NewClusterEnv starts the real server (pages, API and action primitives) and
// an executor on a fresh database with the bundled drivers, deploying to the
// local cluster. Driver actions run only after runActions.
func NewClusterEnv(t *testing.T) *ClusterEnv {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool := dbtest.New(t)
	users, err := auth.NewUsers(pool, auth.WithArgon2(auth.CheapArgon2()))
	require.NoError(t, err)
	sessions, err := auth.NewSessions([]byte(strings.Repeat("k", auth.MinSessionKeyLength)), pool)
	require.NoError(t, err)
	cat := catalog.New(pool)
	_, err = cat.ImportBundled(ctx, bundled.Bundles(), bundled.Names())
	require.NoError(t, err)

	client, err := kube.Connect(kubetest.Kubeconfig(t), "")
	require.NoError(t, err)
	releases, err := release.New(client.Config, logger)
	require.NoError(t, err)
	cluster := &deployment.Cluster{Releases: releases, Kube: client}
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	queue, err := executor.New(pool, nil, executor.Options{})
	require.NoError(t, err)
	svc := deployment.New(pool, cat, queue, box, cluster)
	worker, err := executor.New(pool, svc.Runners(), executor.Options{HeartbeatEvery: time.Second, StaleAfter: 10 * time.Second})
	require.NoError(t, err)
	require.NoError(t, worker.Start(ctx))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(t, worker.Stop(stopCtx))
	})

	simulated, err := client.Simulated(ctx)
	require.NoError(t, err)
	require.True(t, simulated, "the local cluster's pods are simulated")
	tokens := auth.NewAPITokens(pool)
	srv := httptest.NewServer(handlers.New(handlers.Deps{
		Logger: logger, Sessions: sessions, Users: users, Drivers: cat, Deployments: svc, SimulatedCluster: simulated,
		APITokens: tokens, Primitives: svc,
	}))
	t.Cleanup(srv.Close)
	return &ClusterEnv{URL: srv.URL, Users: users, APITokens: tokens, Catalog: cat, Service: svc, Cluster: cluster}
}

// RunActions lets the executor run driver actions for real, calling back
// this server's primitives.
func (env *ClusterEnv) RunActions(t *testing.T) {
	t.Helper()
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, sdk.Install(dir))
	env.Service.EnableActions(deployment.ActionsConfig{Python: python, SDK: dir, APIURL: env.URL}, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// RemoveWhenDone deletes the deployment and its namespace from the cluster
// when the test ends, whatever state it is in.
func (env *ClusterEnv) RemoveWhenDone(t *testing.T, name string) {
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = env.Cluster.Releases.Uninstall(ctx, release.UninstallOptions{Namespace: name, Name: name, IgnoreNotFound: true, Timeout: time.Minute})
		_ = env.Cluster.Kube.DeleteNamespace(ctx, name)
	})
}

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

// WaitEnded waits for a task to end on the cluster.
func (env *ClusterEnv) WaitEnded(t *testing.T, name string, id int64) *deployment.Task {
	t.Helper()
	return executortest.Wait(t, func(ctx context.Context) (*deployment.Task, error) { return env.Service.Task(ctx, name, id) }, (*deployment.Task).Ended)
}
