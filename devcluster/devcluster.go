// Package devcluster starts, stops and finds the local Kubernetes cluster that
// the separate Go module localkube/ builds (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and the real node: containerd, the
// kubelet, kube-proxy and CoreDNS; or kwok's simulated node), for `make run`,
// `make cluster` and the end-to-end tests. The cluster lives in
// <repo>/.cluster: bin/ (built binaries), logs/, run/ (data, certificates),
// kubeconfig, and ready.json while it is up.
package devcluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Cluster is the local cluster of one repository checkout.
type Cluster struct {
	root string    // repository root, holding localkube/
	out  io.Writer // progress messages
	// node is the node the cluster runs: NodeReal unless NodeEnv asks for
	// NodeSimulated, or the machine cannot run containers and the caller
	// allowed the fallback.
	node           string
	allowSimulated bool
	// support says whether the machine can run containers (containerSupport).
	support func() error
}

// New returns the cluster of the checkout at root, reporting progress to out.
// It runs the node NodeEnv asks for, the real one by default; where the
// machine cannot run containers, Ensure fails unless AllowSimulated was called.
func New(root string, out io.Writer) (*Cluster, error) {
	if _, err := os.Stat(filepath.Join(root, "localkube", "go.mod")); err != nil {
		return nil, fmt.Errorf("devcluster: %s is not a Styrmin checkout (no localkube/go.mod): %w", root, err)
	}
	return &Cluster{root: root, out: out, node: requestedNode(), support: containerSupport}, nil
}

// AllowSimulated lets Ensure fall back to the simulated node, saying so in
// one sentence, where the machine cannot run containers (`make run`, `make
// cluster`). Tests never fall back: this kind of machine must run real pods.
func (c *Cluster) AllowSimulated() { c.allowSimulated = true }

// Node is the node the cluster runs, NodeReal or NodeSimulated; after Ensure,
// it says whether the fallback was taken.
func (c *Cluster) Node() string { return c.node }

// BinDir holds the built binaries (kubectl, and localkube for `localkube image`).
func (c *Cluster) BinDir() string { return c.binDir() }

// FindRoot walks up from dir to the repository root (the folder holding localkube/go.mod).
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("devcluster: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "localkube", "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("devcluster: no Styrmin checkout (a folder with localkube/go.mod) above %s", dir)
		}
	}
}

// Dir is the cluster's folder, <root>/.cluster.
func (c *Cluster) Dir() string { return filepath.Join(c.root, ".cluster") }

// Kubeconfig is the admin kubeconfig written while the cluster runs.
func (c *Cluster) Kubeconfig() string { return filepath.Join(c.Dir(), "kubeconfig") }

func (c *Cluster) binDir() string    { return filepath.Join(c.Dir(), "bin") }
func (c *Cluster) pidFile() string   { return filepath.Join(c.Dir(), "localkube.pid") }
func (c *Cluster) readyFile() string { return filepath.Join(c.Dir(), "ready.json") }
func (c *Cluster) logFile() string   { return filepath.Join(c.Dir(), "logs", "localkube.log") }

// state is what localkube writes to ready.json once the cluster is ready.
type state struct {
	PID    int    `json:"pid"`
	Server string `json:"server"`
	Node   string `json:"node"` // NodeReal or NodeSimulated; empty before the real node was the default
}

// Running reports whether a ready cluster runs, and its API server URL.
func (c *Cluster) Running() (server string, running bool, err error) {
	s, running, err := c.running()
	return s.Server, running, err
}

// running returns the state of the ready cluster that runs, if one does.
func (c *Cluster) running() (state, bool, error) {
	pid, alive, err := c.supervisor()
	if err != nil || !alive {
		return state{}, false, err
	}
	data, err := os.ReadFile(c.readyFile())
	if errors.Is(err, os.ErrNotExist) {
		return state{}, false, nil
	}
	if err != nil {
		return state{}, false, fmt.Errorf("devcluster: %w", err)
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return state{}, false, fmt.Errorf("devcluster: read %s: %w", c.readyFile(), err)
	}
	return s, s.PID == pid, nil
}

// supervisor returns the pid of the localkube process from the pid file and
// whether that process still runs.
func (c *Cluster) supervisor() (int, bool, error) {
	data, err := os.ReadFile(c.pidFile())
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("devcluster: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0, false, fmt.Errorf("devcluster: %s is corrupt (delete it and run `make cluster-stop`): %w", c.pidFile(), err)
	}
	return pid, isLocalkube(pid), nil
}

// isLocalkube reports whether pid is a live localkube process (not a reused pid).
func isLocalkube(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	return strings.Contains(strings.SplitN(string(cmdline), "\x00", 2)[0], "localkube")
}
