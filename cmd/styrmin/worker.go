package main

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
)

// workerConfig is a worker's configuration, from flags and STYRMIN_* variables.
type workerConfig struct {
	databaseURL string
	kubeconfig  string
	kubeContext string
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
	f := cmd.Flags()
	addDatabaseFlag(cmd, &cfg.databaseURL)
	f.StringVar(&cfg.kubeconfig, "kubeconfig", envOr("KUBECONFIG", ""), "kubeconfig of the cluster to deploy to (env KUBECONFIG)")
	f.StringVar(&cfg.kubeContext, "kube-context", os.Getenv("STYRMIN_KUBE_CONTEXT"), "context of the kubeconfig to use instead of its current one (env STYRMIN_KUBE_CONTEXT)")
	f.StringVar(&cfg.logFormat, "log-format", envOr("STYRMIN_LOG_FORMAT", "text"), "log format: text or json (env STYRMIN_LOG_FORMAT)")
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
	client, _, err := connectCluster(ctx, cfg.kubeconfig, cfg.kubeContext, logger)
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
