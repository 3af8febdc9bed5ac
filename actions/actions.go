// Package actions runs a driver's Python action in a child process as
// docs/actions.md describes: the bundle in a private folder, the prompts on
// standard input, only the run's own variables in the environment, log lines
// read as they come, and the process group killed at the action's timeout
// or when the run is cancelled. A server running as root runs each action in
// a sandbox (sandbox.go): as a user of its own, in new PID and mount
// namespaces, with read-only copies of its bundle and of the SDK; everything
// it started ends with it. The pod runtime (pod.go) runs it as a pod instead.
package actions

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/styrmin/styrmin/drivers"
)

// Limits of what one run may write.
const (
	// MaxLineBytes is the longest line read, its newline included; longer
	// ones are cut. The runner (MAX_LINE_BYTES in sdk/python/styrmin/run.py)
	// cuts the text of a longer record so that its protocol line fits.
	MaxLineBytes = 16 << 10
	// LineCut ends a line that was cut (MESSAGE_CUT in the runner, which
	// ends a record's message it cut the same way).
	LineCut = " …(line cut)"
	// MaxLines is how many log lines of one run reach the sink; later ones
	// are counted and reported in one last line.
	MaxLines = 5000
	// killGrace is how long a stopped action gets between SIGTERM and SIGKILL.
	killGrace = 5 * time.Second
	// outputDelay is how long the output of an action whose process exited is
	// still read: enough to read what the pipes hold, not to wait for a
	// process the action left running with its standard output.
	outputDelay = 2 * time.Second
)

// Env is what the action process learns about its run.
type Env struct {
	APIURL     string
	Token      string
	Deployment string
	Namespace  string
	Release    string
	StepID     int64
}

// Spec is one run of an action.
type Spec struct {
	// Python is the interpreter's path (see FindPython).
	Python string
	// SDK is the folder holding the styrmin package.
	SDK string
	// Files are the bundle's files by slash path (drivers.Bundle.Files).
	Files   map[string][]byte
	Action  drivers.Action
	Prompts map[string]any
	Env     Env
	// Labels mark what the pod runtime creates for the run as its
	// deployment's (release.Owner.Labels); the process runtime ignores them.
	Labels map[string]string
}

// Line is one log line of the run.
type Line struct {
	Level   string
	Message string
}

// Outcome is how a run ended.
type Outcome struct {
	// Result is the function's return value as JSON; nil when it did not return.
	Result json.RawMessage
	// ExitCode is the action's exit status (-1 when it was killed).
	ExitCode int
	// Exception is the last line of the uncaught exception, "" when none.
	Exception string
	// Traceback is the uncaught exception's traceback.
	Traceback string
	// FirstError is the first line of the first log record of level ERROR or
	// CRITICAL (a logging.exception record's message without its traceback),
	// "" when none.
	FirstError string
	// TimedOut and Canceled say why a run was stopped.
	TimedOut, Canceled bool
}

// Failed reports whether the run crashed, timed out or was stopped.
func (o Outcome) Failed() bool { return o.ExitCode != 0 || o.TimedOut || o.Canceled }

// ErrorLine is what becomes part of a failed run's error: the first ERROR
// line, else the exception's last line, else why the process ended.
func (o Outcome) ErrorLine(timeout time.Duration) string {
	switch {
	case o.FirstError != "":
		return o.FirstError
	case o.Exception != "":
		return o.Exception
	case o.TimedOut:
		return fmt.Sprintf("the action did not finish within its timeout of %s and was stopped", timeout)
	case o.Canceled:
		return "the action was cancelled"
	case o.ExitCode == -1:
		return "the action's process was killed"
	}
	return fmt.Sprintf("the action's process exited with status %d", o.ExitCode)
}

// FindPython returns the path of the python3 interpreter, asking it for its
// own executable so that version-manager shims (pyenv) are not run at every
// action, nor need their variables in the action's environment.
func FindPython(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return "", fmt.Errorf("actions: python3 is needed to run driver actions: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Run runs the action and calls sink with each log line as it arrives, one
// line at a time (never from two goroutines at once), so that sink may number
// them. It returns once the process has ended and its output has been read
// (for outputDelay at most after its end); the processes the action left
// running in its process group (in its sandbox, all of them) are killed then. An error means it could not
// be run at all.
func Run(ctx context.Context, spec Spec, sink func(Line)) (Outcome, error) {
	sandboxed := Sandboxed()
	dir, err := newRunDir(spec, sandboxed)
	if err != nil {
		return Outcome{}, err
	}
	defer os.RemoveAll(dir.root)
	prompts := spec.Prompts
	if prompts == nil {
		prompts = map[string]any{} // the runner takes one JSON object, {} for none
	}
	stdin, err := json.Marshal(prompts)
	if err != nil {
		return Outcome{}, fmt.Errorf("actions: prompts: %w", err)
	}
	timeout := spec.Action.TimeoutDuration()
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	stdoutR, stdoutW := io.Pipe()
	stderrR, stderrW := io.Pipe()
	cmd := command(spec, dir, sandboxed, stdin, stdoutW, stderrW)
	if err := cmd.Start(); err != nil {
		return Outcome{}, fmt.Errorf("actions: start %s: %w", spec.Python, err)
	}
	stopped := make(chan struct{})
	go stopOnDone(runCtx, cmd.Process.Pid, stopped)

	var out Outcome
	lines := newLineSink(sink, &out)
	var readers sync.WaitGroup
	// Both streams are read as the runner's protocol, as the pod runtime
	// reads its container's log, which does not tell them apart.
	readers.Go(func() { readLines(stderrR, MaxLineBytes, lines.protocol) })
	readers.Go(func() { readLines(stdoutR, MaxLineBytes, lines.protocol) })
	waitErr := cmd.Wait()
	close(stopped)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // what the action left running, if anything
	stdoutW.Close()
	stderrW.Close()
	readers.Wait()
	lines.finish()

	out.ExitCode = exitCode(cmd.ProcessState, sandboxed)
	switch {
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		out.TimedOut = true
	case ctx.Err() != nil:
		out.Canceled = true
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return out, fmt.Errorf("actions: wait: %w", waitErr)
	}
	return out, nil
}

// exitCode is the action's exit status, -1 when it was killed. The init of
// a sandbox, which cannot kill itself with the signal that killed the action,
// exits with 128 plus the signal's number as a shell does; so a sandboxed
// action that exits with such a status itself (the runner's 143 after
// SIGTERM) reads as killed too.
func exitCode(state *os.ProcessState, sandboxed bool) int {
	code := state.ExitCode()
	if sandboxed && code > 128 && code <= 128+64 {
		return -1
	}
	return code
}

// command is the action's process, writing to stdout and stderr. They are
// not files, so exec copies the output and stops at outputDelay after the
// process exited, even when a process it left running holds the pipes.
func command(spec Spec, dir runDir, sandboxed bool, stdin []byte, stdout, stderr io.Writer) *exec.Cmd {
	cmd := newCommand(spec, dir, sandboxed, "-m", "styrmin.run")
	cmd.Env = environment(spec, dir)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = outputDelay
	return cmd
}

// environment is the action process's whole environment.
func environment(spec Spec, dir runDir) []string {
	env := pythonEnvironment(dir)
	for _, kv := range runVariables(spec) {
		env = append(env, kv[0]+"="+kv[1])
	}
	return env
}

// pythonEnvironment is what every Python child of a run folder gets: the
// bundle and the SDK on its import path, nothing of the server's environment
// but PATH.
func pythonEnvironment(dir runDir) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir.home,
		"LANG=C.UTF-8",
		"PYTHONUNBUFFERED=1",
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONPATH=" + dir.bundle + string(os.PathListSeparator) + dir.sdk,
	}
}

// TokenVariable is the variable that gives an action its run's token.
const TokenVariable = "STYRMIN_ACTION_TOKEN"

// runVariables are the STYRMIN_ variables of a run (docs/actions.md), as
// name and value, in either runtime.
func runVariables(spec Spec) [][2]string {
	return [][2]string{
		{"STYRMIN_API_URL", spec.Env.APIURL},
		{TokenVariable, spec.Env.Token},
		{"STYRMIN_DEPLOYMENT", spec.Env.Deployment},
		{"STYRMIN_NAMESPACE", spec.Env.Namespace},
		{"STYRMIN_RELEASE", spec.Env.Release},
		{"STYRMIN_HOOK_STEP", strconv.FormatInt(spec.Env.StepID, 10)},
		{"STYRMIN_ACTION", spec.Action.Name},
		{"STYRMIN_ACTION_FUNCTION", spec.Action.Function},
	}
}

// stopOnDone ends the process group when ctx ends before the process does:
// SIGTERM, then SIGKILL after killGrace.
func stopOnDone(ctx context.Context, pid int, stopped <-chan struct{}) {
	select {
	case <-stopped:
		return
	case <-ctx.Done():
	}
	syscall.Kill(-pid, syscall.SIGTERM) //nolint:errcheck // the group may be gone already
	select {
	case <-stopped:
	case <-time.After(killGrace):
		syscall.Kill(-pid, syscall.SIGKILL) //nolint:errcheck // the group may be gone already
	}
}

// writeFiles writes a bundle's files under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if !strings.HasPrefix(path, dir+string(filepath.Separator)) {
			return fmt.Errorf("actions: bundle file %q is outside the bundle", name)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("actions: %w", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("actions: %w", err)
		}
	}
	return nil
}

// readLines calls fn with each line of r, cut at limit bytes (its newline
// included), until EOF.
func readLines(r io.Reader, limit int, fn func(string)) {
	br := bufio.NewReaderSize(r, limit)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			text := strings.TrimRight(string(line), "\r\n")
			if err == bufio.ErrBufferFull {
				text += LineCut
				discardRest(br)
			}
			fn(text)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// discardRest skips to the end of an over-long line.
func discardRest(br *bufio.Reader) {
	for {
		_, err := br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return
		}
	}
}
