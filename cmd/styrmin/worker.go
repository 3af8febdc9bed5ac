package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/app"
	"github.com/styrmin/styrmin/db"
)

// workerConfig is a worker's configuration, from flags and STYRMIN_* variables.
type workerConfig struct {
	databaseURL string
	logFormat   string
	logLevel    string
	deploy      deployConfig
	// metricsAddr serves /metrics; empty, nowhere.
	metricsAddr string
}

func newWorkerCmd() *cobra.Command {
	var cfg workerConfig
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run tasks only, beside `styrmin serve --no-executor` (several workers may share one database)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := shield(); err != nil {
				return err
			}
			return runWorker(cmd.Context(), cfg, cmd.ErrOrStderr())
		},
	}
	addDatabaseFlag(cmd, &cfg.databaseURL)
	addLogFlags(cmd, &cfg.logFormat, &cfg.logLevel)
	addDeployFlags(cmd, &cfg.deploy)
	addMetricsFlag(cmd, &cfg.metricsAddr, "127.0.0.1:9091")
	return cmd
}

// runWorker builds the app (app.New) working tasks and runs its worker until
// ctx ends, then drains it.
func runWorker(ctx context.Context, cfg workerConfig, stderr io.Writer) error {
	logger, err := newLogger(cfg.logFormat, cfg.logLevel, stderr)
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
	metricsCtx, stopMetrics := context.WithCancel(ctx)
	m, waitMetrics, err := startMetrics(metricsCtx, cfg.metricsAddr, logger)
	if err != nil {
		stopMetrics()
		return err
	}
	defer func() { stopMetrics(); _ = waitMetrics() }() // the normal path below returns its error
	appCfg, err := cfg.deploy.appConfig(pool, logger, true)
	if err != nil {
		return err
	}
	appCfg.Metrics = m
	a, err := app.New(ctx, appCfg)
	if err != nil {
		return err
	}
	defer a.Close()
	if m != nil {
		m.SetReady() // the worker's readiness probe: its app is built
	}
	runErr := a.Run(ctx)
	stopMetrics()
	return errors.Join(runErr, waitMetrics())
}
