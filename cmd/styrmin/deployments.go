package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/sdk"
	"github.com/styrmin/styrmin/secrets"
)

// deployConfig is what deployments need besides the database: the cluster,
// the key of secret parameters and how long a stopping executor lets tasks finish.
type deployConfig struct {
	kubeconfig    string
	kubeContext   string
	secretKey     string
	secretKeyFile string
	drainTimeout  time.Duration
	// apiURL is the base URL driver actions call back (their primitives).
	apiURL string
}

// addDeployFlags adds the flags of deployConfig to cmd.
func addDeployFlags(cmd *cobra.Command, cfg *deployConfig) {
	f := cmd.Flags()
	f.StringVar(&cfg.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster to deploy to (env KUBECONFIG)")
	f.StringVar(&cfg.kubeContext, "kube-context", os.Getenv("STYRMIN_KUBE_CONTEXT"), "context of the kubeconfig to use instead of its current one (env STYRMIN_KUBE_CONTEXT)")
	f.StringVar(&cfg.secretKey, "secret-key", os.Getenv("STYRMIN_SECRET_KEY"),
		"32 random bytes as base64 (`openssl rand -base64 32`) that encrypt secret parameters; keep it safe: without it they cannot be read (env STYRMIN_SECRET_KEY)")
	f.StringVar(&cfg.secretKeyFile, "secret-key-file", os.Getenv("STYRMIN_SECRET_KEY_FILE"), "file holding the secret key instead of --secret-key (env STYRMIN_SECRET_KEY_FILE)")
	f.DurationVar(&cfg.drainTimeout, "drain-timeout", 30*time.Second, "how long running tasks may go on after a stop signal before they are cancelled and recovered")
	f.StringVar(&cfg.apiURL, "api-url", os.Getenv("STYRMIN_API_URL"),
		"base URL at which driver actions reach this Styrmin's primitives; serve defaults to its own address (env STYRMIN_API_URL)")
}

// deployments builds the deployment service (queueing through an executor
// without runners) and the executor that runs its tasks. client is nil when
// no cluster is configured. cleanup removes the Python package written for
// the actions.
func deployments(ctx context.Context, pool *pgxpool.Pool, cfg deployConfig, drivers *catalog.Catalog, client *kube.Client, logger *slog.Logger) (svc *deployment.Service, worker *executor.Executor, cleanup func(), err error) {
	cleanup = func() {}
	key, err := secrets.LoadKey(cfg.secretKey, cfg.secretKeyFile)
	if err != nil {
		return nil, nil, cleanup, err
	}
	box, err := secrets.NewBox(key)
	if err != nil {
		return nil, nil, cleanup, err
	}
	if err := box.Verify(ctx, db.New(pool)); err != nil {
		return nil, nil, cleanup, err
	}
	var cluster *deployment.Cluster
	if client != nil {
		releases, err := release.New(client.Config, logger)
		if err != nil {
			return nil, nil, cleanup, err
		}
		cluster = &deployment.Cluster{Releases: releases, Kube: client}
	}
	opts := executor.Options{Logger: logger}
	queue, err := executor.New(pool, nil, opts)
	if err != nil {
		return nil, nil, cleanup, err
	}
	svc = deployment.New(pool, drivers, queue, box, cluster)
	if cleanup, err = enableActions(ctx, svc, cfg.apiURL, logger); err != nil {
		return nil, nil, cleanup, err
	}
	worker, err = executor.New(pool, svc.Runners(), opts)
	if err != nil {
		return nil, nil, cleanup, err
	}
	return svc, worker, cleanup, nil
}

// enableActions lets svc run driver actions: python3 (a warning and no
// actions when it is missing; hook steps then say so) and the styrmin package
// written to a temporary folder that cleanup removes.
func enableActions(ctx context.Context, svc *deployment.Service, apiURL string, logger *slog.Logger) (cleanup func(), err error) {
	cleanup = func() {}
	python, err := actions.FindPython(ctx)
	if err != nil {
		logger.Warn("driver actions cannot run", "error", err)
		return cleanup, nil
	}
	dir, err := os.MkdirTemp("", "styrmin-sdk-")
	if err != nil {
		return cleanup, fmt.Errorf("actions: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := sdk.Install(dir); err != nil {
		return cleanup, err
	}
	svc.EnableActions(deployment.ActionsConfig{Python: python, SDK: dir, APIURL: apiURL}, logger)
	return cleanup, nil
}

// runExecutor works tasks until ctx ends, then drains them for up to drain.
// Stopped while it starts, it stops cleanly: it ran nothing yet.
func runExecutor(ctx context.Context, worker *executor.Executor, drain time.Duration, logger *slog.Logger) error {
	if err := worker.Start(ctx); err != nil {
		if ctx.Err() != nil {
			logger.Info("executor stopped before it started")
			return nil
		}
		return err
	}
	logger.Info("executor started")
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := worker.Stop(stopCtx); err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	logger.Info("executor stopped")
	return nil
}

// ownURL is the base URL of a server listening on addr, as a process on the
// same machine reaches it (a wildcard host becomes the loopback address).
func ownURL(addr string, tls bool) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
