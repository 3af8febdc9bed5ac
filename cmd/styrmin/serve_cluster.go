package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/kube"
)

// clusterChecks connects to the configured cluster, logs whether it answers and
// its version, and returns the /readyz check for it (whose error, with the
// cluster's address, goes only to the log); none when no cluster is
// configured. A kubeconfig that cannot be loaded is an error.
func clusterChecks(ctx context.Context, kubeconfig string, logger *slog.Logger) ([]handlers.ReadyCheck, error) {
	client, err := kube.Connect(kubeconfig)
	if errors.Is(err, kube.ErrNotConfigured) {
		logger.Warn("no Kubernetes cluster configured", "hint", "set KUBECONFIG or --kubeconfig; `make run` starts a local cluster when KUBECONFIG is unset")
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	health := client.Health(ctx, 10*time.Second)
	if health.Reachable {
		logger.Info("cluster connected", "server", health.Server, "version", health.Version)
	} else {
		logger.Warn("cluster unreachable", "server", health.Server, "err", health.Error)
	}
	check := func(ctx context.Context) error {
		health := client.Health(ctx, 5*time.Second)
		if !health.Reachable {
			return fmt.Errorf("cluster %s: %s", health.Server, health.Error)
		}
		return nil
	}
	return []handlers.ReadyCheck{{Name: "cluster", Check: check}}, nil
}
