package controlplane

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is one running component with its log file.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	// beforeStop, when set, runs before the process is signalled to stop.
	beforeStop func() error
}

// startProcess runs binDir/name with args, its output in logDir/name.log
// (replaced at each start), in the network namespace namespace (the host's
// when empty). The component is killed if this supervisor dies.
func startProcess(binDir, logDir, namespace, name string, args ...string) (*process, error) {
	logFile, err := os.OpenFile(filepath.Join(logDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	if namespace != "" {
		// nsenter enters the network namespace only and then execs the component.
		cmd = exec.Command("nsenter", append([]string{"--net=" + namespacePath(namespace), "--", cmd.Path}, args...)...)
	}
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended, with how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, fmt.Errorf("%s exited: %v (see its log)", p.name, p.err)
	default:
		return false, nil
	}
}

// stop runs beforeStop, sends SIGTERM and waits up to grace, then kills the process.
func (p *process) stop(grace time.Duration) error {
	var before error
	if p.beforeStop != nil {
		before = p.beforeStop()
	}
	return errors.Join(before, p.signalStop(grace))
}

func (p *process) signalStop(grace time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop %s: %w", p.name, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill %s: %w", p.name, err)
	}
	<-p.done
	return fmt.Errorf("%s did not stop within %s and was killed", p.name, grace)
}
