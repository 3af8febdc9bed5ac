package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
)

// workerConfig is a worker's configuration, from flags and STYRMIN_* variables.
type workerConfig struct {
	databaseURL string
	logFormat   string
	deploy      deployConfig
}

func newWorkerCmd() *cobra.Command {
	var cfg workerConfig
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run tasks only, beside `styrmin serve --no-executor` (several workers may share one database)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWorker(cmd.Context(), cfg, cmd.ErrOrStderr())
		},
	}
	addDatabaseFlag(cmd, &cfg.databaseURL)
	addLogFormatFlag(cmd, &cfg.logFormat)
	addDeployFlags(cmd, &cfg.deploy)
	return cmd
}

// runWorker runs the executor until ctx ends, then drains it.
func runWorker(ctx context.Context, cfg workerConfig, stderr io.Writer) error {
	logger, err := newLogger(cfg.logFormat, stderr)
	if err != nil {
		return err
	}
	pool, err := openDatabase(ctx, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := db.Migrate(ctx, pool); err != nil {
		return err
	}
	client, _, err := connectCluster(ctx, cfg.deploy.kubeconfig, cfg.deploy.kubeContext, logger)
	if err != nil {
		return err
	}
	if cfg.deploy.apiURL == "" {
		cfg.deploy.apiURL = "http://127.0.0.1:8080"
	}
	_, worker, cleanup, err := deployments(ctx, pool, cfg.deploy, catalog.New(pool), client, logger)
	defer cleanup()
	if err != nil {
		return err
	}
	return runExecutor(ctx, worker, cfg.deploy.drainTimeout, logger)
}
