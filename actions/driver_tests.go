package actions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Budgets of one run of a driver's tests (styrmin driver test).
const (
	// DefaultTestTimeout is how long a driver's tests may run unless told otherwise.
	DefaultTestTimeout = 5 * time.Minute
	// MaxTestOutput is how much of the tests' output is passed on, in bytes;
	// the rest is counted and reported in one last line.
	MaxTestOutput = 1 << 20
)

// TestSpec is one run of a driver's Python tests: unittest discovery in the
// folder TestsFolder of the bundle, with the bundle and the SDK (which holds
// styrmin.testing) on the import path.
type TestSpec struct {
	// Python is the interpreter's path (see FindPython).
	Python string
	// SDK is the folder holding the styrmin package.
	SDK string
	// Files are the driver folder's files by slash path, its tests included.
	Files map[string][]byte
	// TestsFolder is the tests' folder, relative to the bundle's root.
	TestsFolder string
	// Timeout bounds the whole run; DefaultTestTimeout when zero.
	Timeout time.Duration
}

// TestOutcome is how a run of a driver's tests ended.
type TestOutcome struct {
	// ExitCode is unittest's exit status (0: every test passed; -1: killed).
	ExitCode int
	// TimedOut says the run was stopped at its timeout.
	TimedOut bool
}

// Passed reports whether every test passed.
func (o TestOutcome) Passed() bool { return o.ExitCode == 0 && !o.TimedOut }

// RunTests runs the tests of spec as an action runs (the same run folder,
// sandbox when the server's user can build one, environment and process
// group, killed at the timeout) and copies unittest's output to out, at most
// MaxTestOutput bytes of it. An error means the tests could not be run.
func RunTests(ctx context.Context, spec TestSpec, out io.Writer) (TestOutcome, error) {
	sandboxed := Sandboxed()
	dir, err := newRunDir(Spec{SDK: spec.SDK, Files: spec.Files}, sandboxed)
	if err != nil {
		return TestOutcome{}, err
	}
	defer os.RemoveAll(dir.root)
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTestTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	capped := &cappedWriter{w: out, left: MaxTestOutput}
	cmd := newCommand(Spec{Python: spec.Python}, dir, sandboxed, "-m", "unittest", "discover", "-v", "-s", spec.TestsFolder)
	cmd.Env = pythonEnvironment(dir)
	cmd.Stdout, cmd.Stderr = capped, capped
	cmd.WaitDelay = outputDelay
	if err := cmd.Start(); err != nil {
		return TestOutcome{}, fmt.Errorf("actions: start %s: %w", spec.Python, err)
	}
	stopped := make(chan struct{})
	go stopOnDone(runCtx, cmd.Process.Pid, stopped)
	waitErr := cmd.Wait()
	close(stopped)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // what the tests left running, if anything
	capped.finish()

	o := TestOutcome{ExitCode: exitCode(cmd.ProcessState, sandboxed)}
	if ctx.Err() != nil {
		return o, fmt.Errorf("actions: driver tests: %w", ctx.Err())
	}
	o.TimedOut = runCtx.Err() != nil
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return o, fmt.Errorf("actions: driver tests: wait: %w", waitErr)
	}
	return o, nil
}

// cappedWriter passes on the first left bytes written to it and counts the rest.
type cappedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	left    int
	dropped int
}

// Write passes on what fits; it never fails, so that the child is never
// blocked or killed by a full output.
func (c *cappedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := min(len(p), c.left)
	if n > 0 {
		c.w.Write(p[:n]) //nolint:errcheck // a reader that went away loses the output, not the run
		c.left -= n
	}
	c.dropped += len(p) - n
	return len(p), nil
}

// finish reports the bytes that were left out, if any.
func (c *cappedWriter) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropped > 0 {
		fmt.Fprintf(c.w, "\n… %d more bytes of output left out (at most %d are shown)\n", c.dropped, MaxTestOutput)
	}
}
