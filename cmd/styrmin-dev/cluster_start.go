package main

import (
	"context"
	"fmt"
	"os"

	"github.com/styrmin/styrmin/devcluster"
)

// startCluster starts or reuses the local cluster of the checkout at root and
// returns its kubeconfig; stop stops the cluster if this call started it.
func startCluster(ctx context.Context, root string) (kubeconfig string, stop func(), err error) {
	fmt.Fprintln(os.Stderr, "styrmin-dev: KUBECONFIG is not set; using the local cluster in", root+"/.cluster")
	cluster, err := devcluster.New(root, os.Stderr)
	if err != nil {
		return "", nil, err
	}
	cluster.AllowSimulated()
	kubeconfig, started, err := cluster.Ensure(ctx)
	if err != nil {
		return "", nil, err
	}
	stop = func() {
		if !started {
			return
		}
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "styrmin-dev:", err)
		}
	}
	return kubeconfig, stop, nil
}
