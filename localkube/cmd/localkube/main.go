// Command localkube runs Styrmin's local cluster in the foreground: it starts
// etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from
// binaries next to it, marks the cluster ready in <dir>/ready.json, runs the
// action-job runner and the volume provisioner (hostPath volumes under
// <dir>/run/volumes), and on SIGTERM or SIGINT stops everything in reverse order.
//
// Usage: localkube run -dir .cluster
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/localkube/actionrunner"
	"github.com/styrmin/styrmin/localkube/controlplane"
	"github.com/styrmin/styrmin/localkube/provisioner"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "run" {
		fmt.Fprintln(os.Stderr, "usage: localkube run -dir DIR (start it with `make cluster`, stop it with `make cluster-stop`)")
		os.Exit(2)
	}
	flags := flag.NewFlagSet("run", flag.ExitOnError)
	dir := flags.String("dir", ".cluster", "folder of the cluster: bin/ with the component binaries, logs/, run/, kubeconfig")
	flags.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
	if err := run(*dir); err != nil {
		log.Fatalf("localkube: %v", err)
	}
}

func run(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	layout := controlplane.Layout{Dir: abs}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return controlplane.Run(ctx, layout, log.Printf, func(ctx context.Context, kubeconfig string) error {
		config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return fmt.Errorf("cluster services: %w", err)
		}
		runner, err := actionrunner.New(config, filepath.Join(layout.RunDir(), "actions"), log.Printf)
		if err != nil {
			return err
		}
		core, err := kubernetes.NewForConfig(config)
		if err != nil {
			return fmt.Errorf("volume provisioner: %w", err)
		}
		volumes := provisioner.New(core, filepath.Join(layout.RunDir(), "volumes"), log.Printf)
		services, ctx := errgroup.WithContext(ctx)
		services.Go(func() error { return runner.Run(ctx) })
		services.Go(func() error { return volumes.Run(ctx) })
		return services.Wait()
	})
}
