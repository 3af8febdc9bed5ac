package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/secrets"
)

// deployConfig is what deployments need besides the database: the key of
// secret parameters and how long a stopping executor lets tasks finish.
type deployConfig struct {
	secretKey     string
	secretKeyFile string
	drainTimeout  time.Duration
}

// addDeployFlags adds the flags of deployConfig to cmd.
func addDeployFlags(cmd *cobra.Command, cfg *deployConfig) {
	f := cmd.Flags()
	f.StringVar(&cfg.secretKey, "secret-key", os.Getenv("STYRMIN_SECRET_KEY"),
		"32 random bytes as base64 (`openssl rand -base64 32`) that encrypt secret parameters; keep it safe: without it they cannot be read (env STYRMIN_SECRET_KEY)")
	f.StringVar(&cfg.secretKeyFile, "secret-key-file", os.Getenv("STYRMIN_SECRET_KEY_FILE"), "file holding the secret key instead of --secret-key (env STYRMIN_SECRET_KEY_FILE)")
	f.DurationVar(&cfg.drainTimeout, "drain-timeout", 30*time.Second, "how long running tasks may go on after a stop signal before they are cancelled and recovered")
}

// deployments builds the deployment service (queueing through an executor
// without runners) and the executor that runs its tasks. client is nil when
// no cluster is configured.
func deployments(ctx context.Context, pool *pgxpool.Pool, cfg deployConfig, drivers *catalog.Catalog, client *kube.Client, logger *slog.Logger) (*deployment.Service, *executor.Executor, error) {
	key, err := secrets.LoadKey(cfg.secretKey, cfg.secretKeyFile)
	if err != nil {
		return nil, nil, err
	}
	box, err := secrets.NewBox(key)
	if err != nil {
		return nil, nil, err
	}
	if err := box.Verify(ctx, db.New(pool)); err != nil {
		return nil, nil, err
	}
	var cluster *deployment.Cluster
	if client != nil {
		releases, err := release.New(client.Config, logger)
		if err != nil {
			return nil, nil, err
		}
		cluster = &deployment.Cluster{Releases: releases, Kube: client}
	}
	opts := executor.Options{Logger: logger}
	queue, err := executor.New(pool, nil, opts)
	if err != nil {
		return nil, nil, err
	}
	svc := deployment.New(pool, drivers, queue, box, cluster)
	worker, err := executor.New(pool, svc.Runners(), opts)
	if err != nil {
		return nil, nil, err
	}
	return svc, worker, nil
}

// runExecutor works tasks until ctx ends, then drains them for up to drain.
func runExecutor(ctx context.Context, worker *executor.Executor, drain time.Duration, logger *slog.Logger) error {
	if err := worker.Start(ctx); err != nil {
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
