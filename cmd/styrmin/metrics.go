package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/metrics"
)

// addMetricsFlag adds --metrics-addr, defaulting to def: serve and worker
// have different defaults, so that both can run on one host.
func addMetricsFlag(cmd *cobra.Command, addr *string, def string) {
	if v, ok := os.LookupEnv("STYRMIN_METRICS_ADDR"); ok {
		def = v
	}
	cmd.Flags().StringVar(addr, "metrics-addr", def,
		"address of the Prometheus /metrics endpoint, apart from the web app; empty turns it off (env STYRMIN_METRICS_ADDR)")
}

// startMetrics listens on addr and serves a new Metrics there until ctx
// ends; wait returns once it has stopped (and again, with the same error,
// if called again). An empty addr gives no metrics
// (nil) and a wait that returns at once.
func startMetrics(ctx context.Context, addr string, logger *slog.Logger) (m *metrics.Metrics, wait func() error, err error) {
	if addr == "" {
		return nil, func() error { return nil }, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s for metrics: %w (choose another with --metrics-addr or STYRMIN_METRICS_ADDR, or set it empty)", addr, err)
	}
	m = metrics.New()
	done := make(chan error, 1)
	go func() { done <- m.Serve(ctx, ln, logger) }()
	return m, sync.OnceValue(func() error { return <-done }), nil
}
