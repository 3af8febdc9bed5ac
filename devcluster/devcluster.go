// Package devcluster starts, stops and finds the local Kubernetes cluster that
// the separate Go module localkube/ builds (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kwok and the action-job runner), for
// `make run`, `make cluster` and the end-to-end tests. The cluster lives in
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

// NodeEnv is the environment variable that turns the real node on: with
// NodeEnv=real the cluster also runs containerd and a kubelet beside kwok's
// simulated node (docs/local-cluster.md). It is off by default for now.
const NodeEnv = "STYRMIN_LOCAL_NODE"

// RealNodeRequested reports whether NodeEnv asks for the real node.
func RealNodeRequested() bool { return os.Getenv(NodeEnv) == "real" }

// Cluster is the local cluster of one repository checkout.
type Cluster struct {
	root     string    // repository root, holding localkube/
	out      io.Writer // progress messages
	realNode bool      // also build and run the real node
}

// New returns the cluster of the checkout at root, reporting progress to out;
// it runs the real node when RealNodeRequested.
func New(root string, out io.Writer) (*Cluster, error) {
	if _, err := os.Stat(filepath.Join(root, "localkube", "go.mod")); err != nil {
		return nil, fmt.Errorf("devcluster: %s is not a Styrmin checkout (no localkube/go.mod): %w", root, err)
	}
	return &Cluster{root: root, out: out, realNode: RealNodeRequested()}, nil
}

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
}

// Running reports whether a ready cluster runs, and its API server URL.
func (c *Cluster) Running() (server string, running bool, err error) {
	pid, alive, err := c.supervisor()
	if err != nil || !alive {
		return "", false, err
	}
	data, err := os.ReadFile(c.readyFile())
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("devcluster: %w", err)
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return "", false, fmt.Errorf("devcluster: read %s: %w", c.readyFile(), err)
	}
	return s.Server, s.PID == pid, nil
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
