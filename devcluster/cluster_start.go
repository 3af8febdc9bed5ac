package devcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// startTimeout bounds how long a cluster may take to become ready.
const startTimeout = 3 * time.Minute

// Ensure makes sure a ready cluster runs, building and starting it when needed,
// and returns its kubeconfig path and whether this call started it. Concurrent
// callers, also in other processes, wait for each other through a lock file.
func (c *Cluster) Ensure(ctx context.Context) (kubeconfig string, started bool, err error) {
	unlock, err := c.lock()
	if err != nil {
		return "", false, err
	}
	defer unlock()
	if err := c.chooseNode(); err != nil {
		return "", false, err
	}
	s, running, err := c.running()
	if err != nil {
		return "", false, err
	}
	if running && s.Node == c.node {
		return c.Kubeconfig(), false, nil
	}
	if running {
		fmt.Fprintf(c.out, "devcluster: the running local cluster's node is %q, not %q: restarting it\n", s.Node, c.node)
	}
	if err := c.build(ctx); err != nil {
		return "", false, err
	}
	// A supervisor that lives but never became ready is stuck: replace it.
	if err := c.stop(); err != nil {
		return "", false, err
	}
	if err := c.start(ctx); err != nil {
		return "", false, err
	}
	return c.Kubeconfig(), true, nil
}

// chooseNode keeps the real node where this machine can run containers; where
// it cannot, it falls back to the simulated node, saying so, if allowed, and
// fails otherwise.
func (c *Cluster) chooseNode() error {
	if c.node != NodeReal {
		return nil
	}
	err := c.support()
	switch {
	case err == nil:
		return nil
	case c.allowSimulated:
		fmt.Fprintf(c.out, "devcluster: %v, so the local cluster's node is simulated: pods report Running but nothing runs in them, and driver actions fail.\n", err)
		c.node = NodeSimulated
		return nil
	default:
		return fmt.Errorf("devcluster: %w; the tests need the local cluster's real node, which runs the pods (docs/local-cluster.md)", err)
	}
}

// start runs localkube detached from this process (its own session, output in
// .cluster/logs/localkube.log) and waits until it reports the cluster ready.
func (c *Cluster) start(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(c.logFile()), 0o755); err != nil {
		return fmt.Errorf("devcluster: start: %w", err)
	}
	logFile, err := os.OpenFile(c.logFile(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("devcluster: start: %w", err)
	}
	defer logFile.Close()
	fmt.Fprintf(c.out, "devcluster: starting the local cluster (log: %s)\n", c.logFile())
	cmd := exec.Command(filepath.Join(c.binDir(), "localkube"), "run", "-dir", c.Dir(), "-node", c.node)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("devcluster: start localkube: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := os.WriteFile(c.pidFile(), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		cmd.Process.Kill() //nolint:errcheck // reporting the write error matters more
		return fmt.Errorf("devcluster: start: %w", err)
	}
	deadline := time.After(startTimeout)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("devcluster: the local cluster stopped while starting (%v); last lines of %s:\n%s", err, c.logFile(), c.logTail())
		case <-deadline:
			stopErr := c.stop()
			return fmt.Errorf("devcluster: the local cluster was not ready after %s (stopped it: %v); last lines of %s:\n%s", startTimeout, stopErr, c.logFile(), c.logTail())
		case <-ctx.Done():
			return fmt.Errorf("devcluster: start: %w (the cluster keeps starting; `make cluster-stop` stops it)", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		server, running, err := c.Running()
		if err != nil {
			return err
		}
		if running {
			fmt.Fprintf(c.out, "devcluster: local cluster ready at %s, kubeconfig %s\n", server, c.Kubeconfig())
			return nil
		}
	}
}

func (c *Cluster) logTail() string {
	data, err := os.ReadFile(c.logFile())
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}

// lock takes the exclusive lock .cluster/lock, waiting for other holders.
func (c *Cluster) lock() (unlock func(), err error) {
	if err := os.MkdirAll(c.Dir(), 0o755); err != nil {
		return nil, fmt.Errorf("devcluster: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(c.Dir(), "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("devcluster: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("devcluster: lock: %w", err)
	}
	return func() { f.Close() }, nil
}
