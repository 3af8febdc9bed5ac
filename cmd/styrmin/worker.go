package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/app"
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

// runWorker builds the app (app.New) working tasks and runs its worker until
// ctx ends, then drains it.
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
	if cfg.deploy.apiURL == "" {
		cfg.deploy.apiURL = "http://127.0.0.1:8080"
	}
	appCfg, err := cfg.deploy.appConfig(pool, logger, true)
	if err != nil {
		return err
	}
	a, err := app.New(ctx, appCfg)
	if err != nil {
		return err
	}
	defer a.Close()
	return a.Run(ctx)
}
