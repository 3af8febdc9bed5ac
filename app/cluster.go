package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/kube"
)

// connectCluster connects to the configured cluster (kubeContext of
// kubeconfig, or its current context), logs whether it answers
// and its version, and returns the client and the /readyz check for it (whose
// error, with the cluster's address, goes only to the log); no client and no
// check when no cluster is configured. A kubeconfig that cannot be loaded is
// an error.
func connectCluster(ctx context.Context, kubeconfig, kubeContext string, logger *slog.Logger) (*kube.Client, []handlers.ReadyCheck, error) {
	client, err := kube.Connect(kubeconfig, kubeContext)
	if errors.Is(err, kube.ErrNotConfigured) {
		logger.Warn("no Kubernetes cluster configured", "hint", "set KUBECONFIG or --kubeconfig; `make run` starts a local cluster when KUBECONFIG is unset")
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
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
	return client, []handlers.ReadyCheck{{Name: "cluster", Check: check}}, nil
}

// simulated reports whether the cluster's pods are simulated (the local
// development cluster), which the deployment pages then say; false when
// there is no cluster or it cannot tell.
func (a *App) simulated(ctx context.Context) bool {
	if a.Cluster == nil || a.Cluster.Kube == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	simulated, err := a.Cluster.Kube.Simulated(ctx)
	if err != nil {
		a.Logger.Warn("could not tell whether the cluster's pods are simulated", "err", err)
		return false
	}
	if simulated {
		a.Logger.Info("the cluster's pods are simulated (the local development cluster): applications do not really run, Services are not reachable from the host")
	}
	return simulated
}
