// Command localkube runs Styrmin's local cluster in the foreground: it starts
// etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from
// binaries next to it, marks the cluster ready in <dir>/ready.json, runs the
// volume provisioner (hostPath volumes under <dir>/run/volumes), and on
// SIGTERM or SIGINT stops everything in reverse order.
//
// With -node real it also runs a real node (containerd, a kubelet, kube-proxy
// and CoreDNS in a network namespace of its own; see docs/local-cluster.md),
// where every pod runs, with images built on the machine from Debian packages
// and the admission webhook that substitutes them for the images pods
// request; kwok's node is then tainted. `localkube image` builds an image from
// one static binary and imports it into that node's containerd (no registry
// is reached). `localkube node-images` builds the node's images into
// <dir>/images, or finds them there, and prints their substitution rules; the
// node imports them when it starts.
//
// Usage:
//
//	localkube run -dir .cluster [-node kwok|real]
//	localkube image -dir .cluster -name styrmin.local/hello:1 -binary ./hello
//	localkube node-images -dir .cluster
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/localkube/controlplane"
	"github.com/styrmin/styrmin/localkube/nodeimages"
	"github.com/styrmin/styrmin/localkube/ociimage"
	"github.com/styrmin/styrmin/localkube/provisioner"
)

const usage = "usage: localkube run -dir DIR [-node kwok|real] | localkube image -dir DIR -name NAME -binary FILE [-path /app] [-user UID:GID] [-base-layout TAR -base NAME] | localkube node-images -dir DIR (start the cluster with `make cluster`, stop it with `make cluster-stop`)"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	flags := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := flags.String("dir", ".cluster", "folder of the cluster: bin/ with the component binaries, logs/, run/, kubeconfig")
	var err error
	switch os.Args[1] {
	case "run":
		node := flags.String("node", controlplane.NodeReal, "real: a real node (containerd, a kubelet, kube-proxy and cluster DNS) runs the pods; kwok: only the simulated node")
		flags.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
		real := *node == controlplane.NodeReal
		err = run(*dir, controlplane.Options{RealNode: real, SubstituteImages: real})
	case "image":
		var img ociimage.Image
		flags.StringVar(&img.Name, "name", "", "the image's full name, e.g. styrmin.local/hello:1")
		flags.StringVar(&img.Binary, "binary", "", "the static binary the image runs")
		flags.StringVar(&img.Path, "path", "/app", "where the binary goes in the image")
		flags.StringVar(&img.BaseLayout, "base-layout", "", "an OCI layout tar holding the base image, e.g. .cluster/images/<key>/images.tar (none: the binary alone)")
		flags.StringVar(&img.BaseName, "base", "", "the base image's name in -base-layout, e.g. styrmin.local/python:3")
		flags.StringVar(&img.User, "user", "", "uid[:gid] its containers run as (root when empty), e.g. 65532:65532")
		flags.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
		err = importImage(*dir, img)
	case "node-images":
		flags.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
		err = buildNodeImages(*dir)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		log.Fatalf("localkube: %v", err)
	}
}

func importImage(dir string, img ociimage.Image) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if img.Name == "" || img.Binary == "" {
		return fmt.Errorf("image: -name and -binary are required")
	}
	return controlplane.ImportImage(context.Background(), controlplane.Layout{Dir: abs}, img)
}

// buildNodeImages builds the node's images into the cache (or finds them
// there) and prints their rules as JSON.
func buildNodeImages(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	images, err := nodeimages.Build(ctx, controlplane.Layout{Dir: abs}.ImagesDir(), log.Printf)
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	return out.Encode(images.Rules)
}

func run(dir string, opts controlplane.Options) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	layout := controlplane.Layout{Dir: abs}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return controlplane.Run(ctx, layout, opts, log.Printf, func(ctx context.Context, kubeconfig string) error {
		config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return fmt.Errorf("volume provisioner: %w", err)
		}
		core, err := kubernetes.NewForConfig(config)
		if err != nil {
			return fmt.Errorf("volume provisioner: %w", err)
		}
		return provisioner.New(core, filepath.Join(layout.RunDir(), "volumes"), log.Printf).Run(ctx)
	})
}
