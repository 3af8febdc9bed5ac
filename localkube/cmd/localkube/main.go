// Command localkube runs Styrmin's local cluster in the foreground: it starts
// etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from
// binaries next to it, marks the cluster ready in <dir>/ready.json, runs the
// action-job runner and the volume provisioner (hostPath volumes under
// <dir>/run/volumes), and on SIGTERM or SIGINT stops everything in reverse order.
//
// With -node real it also runs a real node (containerd and a kubelet; see
// docs/local-cluster.md) and the admission webhook that substitutes images
// built on the machine for the ones pods request, by the rules in
// -image-rules (a JSON list of substitute.Rule; none when the file is
// absent). `localkube image` builds an image from one static binary and
// imports it into that node's containerd (no registry is reached).
//
// Usage:
//
//	localkube run -dir .cluster [-node kwok|real] [-image-rules FILE]
//	localkube image -dir .cluster -name styrmin.local/hello:1 -binary ./hello
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
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
	"github.com/styrmin/styrmin/localkube/ociimage"
	"github.com/styrmin/styrmin/localkube/provisioner"
	"github.com/styrmin/styrmin/localkube/substitute"
)

const usage = "usage: localkube run -dir DIR [-node kwok|real] [-image-rules FILE] | localkube image -dir DIR -name NAME -binary FILE (start the cluster with `make cluster`, stop it with `make cluster-stop`)"

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
		node := flags.String("node", "kwok", "kwok: only the simulated node; real: also a real node (containerd and a kubelet) and image substitution")
		rulesFile := flags.String("image-rules", "", "with -node real: a JSON list of image substitution rules (default DIR/image-rules.json, none when absent)")
		flags.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
		opts := controlplane.Options{RealNode: *node == "real", SubstituteImages: *node == "real"}
		if opts.SubstituteImages {
			opts.ImageRules, err = readImageRules(cmp.Or(*rulesFile, filepath.Join(*dir, "image-rules.json")), *rulesFile != "")
		}
		if err == nil {
			err = run(*dir, opts)
		}
	case "image":
		var img ociimage.Image
		flags.StringVar(&img.Name, "name", "", "the image's full name, e.g. styrmin.local/hello:1")
		flags.StringVar(&img.Binary, "binary", "", "the static binary the image runs")
		flags.StringVar(&img.Path, "path", "/app", "where the binary goes in the image")
		flags.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
		err = importImage(*dir, img)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		log.Fatalf("localkube: %v", err)
	}
}

// readImageRules reads a JSON list of substitute.Rule from path; an absent
// file is no rules unless required.
func readImageRules(path string, required bool) ([]substitute.Rule, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("image rules: %w", err)
	}
	var rules []substitute.Rule
	if err := json.Unmarshal(data, &rules); err != nil {
		return nil, fmt.Errorf("image rules: %s is not a JSON list of rules: %w", path, err)
	}
	return rules, nil
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
