// Command cluster starts and stops the local Kubernetes cluster of this
// checkout (behind `make cluster`, `make cluster-stop` and `make test`).
//
//	cluster start            build if needed, start if not running, print the kubeconfig path
//	cluster stop             stop it (components in reverse order)
//	cluster status           print whether it runs
//	cluster scope -- CMD...  start it if needed, run CMD, stop it afterwards if this started it
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/styrmin/styrmin/devcluster"
)

const usage = "usage: cluster start | stop | status | scope -- COMMAND [ARGS...]"

func main() {
	code, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

func run(args []string) (int, error) {
	if len(args) == 0 {
		return 2, errors.New(usage)
	}
	root, err := devcluster.FindRoot(".")
	if err != nil {
		return 1, err
	}
	cluster, err := devcluster.New(root, os.Stderr)
	if err != nil {
		return 1, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "start":
		cluster.AllowSimulated()
		kubeconfig, _, err := cluster.Ensure(ctx)
		if err != nil {
			return 1, err
		}
		fmt.Printf("local cluster running; try: .cluster/bin/kubectl --kubeconfig %s get nodes\n", kubeconfig)
		return 0, nil
	case "stop":
		if err := cluster.Stop(); err != nil {
			return 1, err
		}
		fmt.Println("local cluster stopped")
		return 0, nil
	case "status":
		server, running, err := cluster.Running()
		if err != nil {
			return 1, err
		}
		if !running {
			fmt.Println("local cluster not running (start it with `make cluster`)")
			return 3, nil
		}
		fmt.Printf("local cluster running at %s, kubeconfig %s\n", server, cluster.Kubeconfig())
		return 0, nil
	case "scope":
		return scope(ctx, cluster, args[1:])
	default:
		return 2, fmt.Errorf("unknown command %q; %s", args[0], usage)
	}
}

// scope starts the cluster if needed (building it with live progress), runs
// the command, and stops the cluster afterwards if it started it, so `make test`
// leaves the machine as it found it.
func scope(ctx context.Context, cluster *devcluster.Cluster, args []string) (int, error) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return 2, errors.New(usage)
	}
	_, started, err := cluster.Ensure(ctx)
	if err != nil {
		return 1, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	runErr := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) {
		code = exitErr.ExitCode()
	} else if runErr != nil {
		code = 1
		fmt.Fprintln(os.Stderr, runErr)
	}
	if started {
		if err := cluster.Stop(); err != nil {
			return 1, err
		}
	}
	return code, nil
}
