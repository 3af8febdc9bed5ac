package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/styrmin/styrmin/devcluster"
)

// startCluster starts or reuses the local cluster of the checkout at root and
// returns its kubeconfig with the server's settings for driver actions
// (podActions); stop stops the cluster if this call started it.
func startCluster(ctx context.Context, root string) (kubeconfig string, settings []string, stop func(), err error) {
	fmt.Fprintln(os.Stderr, "styrmin-dev: KUBECONFIG is not set; using the local cluster in", root+"/.cluster")
	cluster, err := devcluster.New(root, os.Stderr)
	if err != nil {
		return "", nil, nil, err
	}
	cluster.AllowSimulated()
	kubeconfig, started, err := cluster.Ensure(ctx)
	if err != nil {
		return "", nil, nil, err
	}
	stop = func() {
		if !started {
			return
		}
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "styrmin-dev:", err)
		}
	}
	if cluster.Node() == devcluster.NodeReal && os.Getenv("STYRMIN_ACTION_RUNTIME") == "" {
		server, _, err := cluster.Running()
		if err == nil {
			settings, err = podActions(ctx, root, server)
		}
		if err != nil {
			stop()
			return "", nil, nil, err
		}
	}
	return kubeconfig, settings, stop, nil
}

// actionPort is the port of the action API's own address on the host's end
// of the cluster's link (an address no other checkout's cluster uses).
const actionPort = "8080"

// podActions builds the action-runner image into the cluster's node
// (scripts/action-runner-image) and returns the server's settings that run
// driver actions as pods of it, as in production: the pods call the action
// API back at the host's address that they reach (the API server's, server),
// where the server listens for the action API only (--action-addr); its pages
// stay on loopback.
func podActions(ctx context.Context, root, server string) ([]string, error) {
	u, err := url.Parse(server)
	if err != nil {
		return nil, fmt.Errorf("the local cluster's API server %q: %w", server, err)
	}
	fmt.Fprintln(os.Stderr, "styrmin-dev: building the action-runner image: driver actions run as pods of it")
	cmd := exec.CommandContext(ctx, filepath.Join(root, "scripts", "action-runner-image"))
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("scripts/action-runner-image: %w", err)
	}
	return []string{
		"STYRMIN_ACTION_RUNTIME=pod",
		"STYRMIN_ACTION_IMAGE=" + strings.TrimSpace(stdout.String()),
		"STYRMIN_ACTION_ADDR=" + net.JoinHostPort(u.Hostname(), actionPort),
	}, nil
}
