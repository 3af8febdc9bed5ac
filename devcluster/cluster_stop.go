package devcluster

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// stopTimeout bounds an orderly stop before the supervisor is killed.
const stopTimeout = 2 * time.Minute

// Stop stops the running cluster (components in reverse order: kwok, scheduler,
// controller-manager, apiserver, etcd). It does nothing when none runs.
func (c *Cluster) Stop() error {
	unlock, err := c.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return c.stop()
}

func (c *Cluster) stop() error {
	pid, alive, err := c.supervisor()
	if err != nil {
		return err
	}
	if alive {
		fmt.Fprintf(c.out, "devcluster: stopping the local cluster (pid %d)\n", pid)
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			return fmt.Errorf("devcluster: stop: %w", err)
		}
		deadline := time.Now().Add(stopTimeout)
		for isLocalkube(pid) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if isLocalkube(pid) {
			// Its components die with it (they run with a parent-death signal).
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				return fmt.Errorf("devcluster: kill: %w", err)
			}
			return fmt.Errorf("devcluster: the local cluster did not stop within %s and was killed; see %s", stopTimeout, c.logFile())
		}
	}
	for _, f := range []string{c.pidFile(), c.readyFile()} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("devcluster: stop: %w", err)
		}
	}
	return nil
}
