// Package apptest is the tests' one Styrmin: app.New on a fresh database
// holding the bundled drivers, its web app served on a loopback address (or
// only built, for tests that send requests to Env.Handler), and its worker
// started when a test asks (Env.Start). Its users' passwords are hashed with
// auth.CheapArgon2.
package apptest

import (
	"context"
	"crypto/x509"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/app"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/metrics"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/secrets"
	"github.com/styrmin/styrmin/sso"
)

// Options say which Styrmin a test needs; the zero value is one with no
// cluster, whose tasks nothing works and which runs no driver actions.
type Options struct {
	// DatabaseURL is the database; empty, a fresh one (dbtest.NewURL).
	DatabaseURL string
	// SecretKey is the key of secret parameters; empty, a new one.
	SecretKey string
	// Kubeconfig is the cluster to deploy to (kubetest.Kubeconfig); with
	// neither it nor Cluster, there is none, whatever KUBECONFIG says.
	Kubeconfig string
	// Cluster, when set, is the cluster instead (a fake or unreachable one).
	Cluster *deployment.Cluster
	// Work builds the worker, which Env.Start starts.
	Work bool
	// Actions runs driver actions for real (python3 is required), calling
	// back the environment's server.
	Actions bool
	// ActionImage, with Actions and Kubeconfig, runs driver actions as pods
	// of this action-runner image (kubetest.ActionRunnerImage) instead: the
	// server listens where the cluster's pods reach the host
	// (kubetest.HostForPods).
	ActionImage string
	// Executor tunes the queue and worker; zero, WorkerOptions.
	Executor executor.Options
	// NoBundled leaves the bundled drivers out of the catalogue: the test
	// imports its own, or shares a database that has them.
	NoBundled bool
	// NoServer builds the web app without serving it: the test sends its
	// requests to Env.Handler, and URL is empty (Actions needs the server).
	NoServer bool
	// Logger receives the app's logs; nil, slog.Default().
	Logger *slog.Logger
	// Metrics receives the app's series (app.Config.Metrics).
	Metrics *metrics.Metrics
	// ExternalURL is the URL users reach the app at (app.Config.ExternalURL).
	ExternalURL *url.URL
	// SSO is the OpenID Connect provider people sign in with; an empty
	// RedirectURL or PostLogoutURL is filled in under the server's URL.
	SSO *sso.Config
	// Listener, when set, is where the server listens (a test that must
	// know the server's URL before it builds it); empty, a new loopback port.
	Listener net.Listener
	// LocalSignin says who may sign in with a password (app.Config.LocalSignin).
	LocalSignin auth.LocalSignin
	// RegistryCAs verify the registries' certificates (app.Config.RegistryCAs).
	RegistryCAs *x509.CertPool
}

// WorkerOptions are the executor's options of the tests' workers:
// heartbeats quick enough that a task taken over is noticed in seconds.
var WorkerOptions = executor.Options{HeartbeatEvery: time.Second, StaleAfter: 10 * time.Second}

// Env is a Styrmin built by app.New for one test.
type Env struct {
	*app.App
	// URL is the base URL of the web app (pages, REST API, action primitives).
	URL string
	// DatabaseURL and SecretKey are what another process needs to share
	// this environment's database.
	DatabaseURL string
	SecretKey   string
}

// SessionKey signs the environment's session cookies.
var SessionKey = strings.Repeat("k", auth.MinSessionKeyLength)

// New builds the environment of opts; everything stops when the test ends.
// The server listens before app.New, so that the actions' URL is its own.
func New(t testing.TB, opts Options) *Env {
	t.Helper()
	ctx := context.Background()
	env := &Env{DatabaseURL: opts.DatabaseURL, SecretKey: opts.SecretKey}
	if env.DatabaseURL == "" {
		env.DatabaseURL = dbtest.NewURL(t)
	}
	if env.SecretKey == "" {
		env.SecretKey = secrets.NewKeyText()
	}
	pool, err := db.Open(ctx, env.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	var ln net.Listener
	if !opts.NoServer {
		ln = opts.Listener
		if ln == nil {
			host := "127.0.0.1"
			if opts.ActionImage != "" {
				host = kubetest.HostForPods(t, opts.Kubeconfig)
			}
			ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
			require.NoError(t, err)
		}
		t.Cleanup(func() { ln.Close() }) // unless the server took it over
		env.URL = "http://" + ln.Addr().String()
	}
	env.App, err = app.New(ctx, config(t, opts, pool, env))
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	t.Cleanup(env.Close)
	if !opts.NoBundled {
		_, err = env.Catalog.ImportBundled(ctx, bundled.Bundles(), bundled.Names())
		require.NoError(t, err)
	}
	if ln != nil {
		srv := httptest.NewUnstartedServer(env.Handler)
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		t.Cleanup(srv.Close)
	}
	return env
}

// config is the app's configuration of opts, on pool, calling back env.URL
// when it runs driver actions.
func config(t testing.TB, opts Options, pool *pgxpool.Pool, env *Env) app.Config {
	t.Helper()
	cfg := app.Config{
		Pool: pool, Logger: opts.Logger, SecretKey: env.SecretKey, Kubeconfig: opts.Kubeconfig, Cluster: opts.Cluster,
		NoCluster: opts.Kubeconfig == "" && opts.Cluster == nil,
		Executor:  opts.Executor, Work: opts.Work, Drain: 30 * time.Second,
		Serve: true, SessionKey: SessionKey, UsersOptions: []auth.UsersOption{auth.WithArgon2(auth.CheapArgon2())},
		Metrics: opts.Metrics, ExternalURL: opts.ExternalURL, LocalSignin: opts.LocalSignin, RegistryCAs: opts.RegistryCAs,
	}
	if opts.SSO != nil {
		c := *opts.SSO
		if c.RedirectURL == "" {
			c.RedirectURL = env.URL + sso.CallbackPath
		}
		if c.PostLogoutURL == "" {
			c.PostLogoutURL = env.URL + "/signin"
		}
		cfg.SSO = &c
	}
	if cfg.Executor == (executor.Options{}) {
		cfg.Executor = WorkerOptions
	}
	if opts.Actions {
		require.NotEmpty(t, env.URL, "driver actions call back the server, which NoServer leaves out")
		cfg.ActionsURL = env.URL
		if opts.ActionImage != "" {
			cfg.ActionRuntime, cfg.ActionImage = actions.RuntimePod, opts.ActionImage
			return cfg
		}
		_, err := actions.FindPython(context.Background())
		require.NoError(t, err, "driver actions need python3")
	}
	return cfg
}

// Start runs the environment's background work until the test ends (app's
// Run: its worker, with Options.Work, and its change notifications), and
// waits until the notifications are heard.
func (env *Env) Start(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- env.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	select {
	case <-env.Notifications.Ready():
	case <-time.After(time.Minute):
		t.Fatal("apptest: the notification listener did not start")
	}
}

// Uninstall removes deployment name from the cluster, whatever state it is
// in: it uninstalls the deployment's release as its owner, takes back its
// deployer's grant and deletes namespace. A test's cleanup on the shared cluster; errors are ignored, and
// a release the service has no deployment for is left to the namespace's
// deletion.
func Uninstall(ctx context.Context, svc *deployment.Service, cluster *deployment.Cluster, name, namespace string) {
	if d, err := svc.Get(ctx, name); err == nil {
		if owner, err := svc.ReleaseOwner(ctx, d.ID); err == nil {
			_, _ = cluster.Releases.Uninstall(ctx, release.UninstallOptions{Namespace: namespace, Name: name, Owner: owner, IgnoreNotFound: true, Timeout: time.Minute})
		}
	}
	if cluster.Deployers != nil {
		_ = cluster.Deployers.Revoke(ctx, namespace, name)
	}
	_ = cluster.Kube.DeleteNamespace(ctx, namespace)
}
