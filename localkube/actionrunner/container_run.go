package actionrunner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// result is how one container ended.
type result struct {
	name     string
	exitCode int32
	reason   string
	message  string
	finished time.Time
}

// runContainer runs the container's command and args on the host in workDir,
// writing its output to logPath in CRI log format, killed after limit.
func (r *Runner) runContainer(ctx context.Context, pod *corev1.Pod, c corev1.Container, workDir, logPath string, limit time.Duration) result {
	res := result{name: c.Name}
	defer func() { res.finished = time.Now() }()
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return failed(res, 126, "StartError", err.Error())
	}
	defer logFile.Close()
	log := &criWriter{w: logFile}

	argv := append(append([]string{}, c.Command...), c.Args...)
	if len(argv) == 0 {
		msg := fmt.Sprintf("container %q has no command: the local cluster runs action containers on the host and needs an explicit command (e.g. [sh, -c, ...])", c.Name)
		log.line("stderr", msg)
		return failed(res, 127, "StartError", msg)
	}
	env, err := r.containerEnv(ctx, pod, c, workDir)
	if err != nil {
		log.line("stderr", err.Error())
		return failed(res, 126, "CreateContainerConfigError", err.Error())
	}
	limitCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = workDir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return failed(res, 126, "StartError", err.Error())
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return failed(res, 126, "StartError", err.Error())
	}
	if err := cmd.Start(); err != nil {
		log.line("stderr", err.Error())
		return failed(res, 127, "StartError", err.Error())
	}
	stopKill := context.AfterFunc(limitCtx, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }) //nolint:errcheck // the group may be gone already
	defer stopKill()
	var copying sync.WaitGroup
	copying.Go(func() { log.copy("stdout", stdout) })
	copying.Go(func() { log.copy("stderr", stderr) })
	copying.Wait()
	waitErr := cmd.Wait()
	if errors.Is(limitCtx.Err(), context.DeadlineExceeded) {
		msg := fmt.Sprintf("killed after the time limit of %s", limit)
		log.line("stderr", msg)
		return failed(res, 137, "DeadlineExceeded", msg)
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
		res.reason = "Completed"
		return res
	case errors.As(waitErr, &exitErr):
		code := exitErr.ExitCode()
		if code < 0 { // killed by a signal
			code = 137
		}
		return failed(res, int32(code), "Error", "")
	default:
		return failed(res, 126, "Error", waitErr.Error())
	}
}

func failed(res result, code int32, reason, message string) result {
	res.exitCode, res.reason, res.message = code, reason, message
	return res
}

// criWriter writes lines in the CRI log format kwok serves as pod logs:
// "<RFC3339Nano time> <stream> <F|P> <text>".
type criWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// maxLine is where a long line is split into partial (P) entries.
const maxLine = 16 * 1024

func (c *criWriter) copy(stream string, r io.Reader) {
	br := bufio.NewReaderSize(r, maxLine)
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(chunk) > 0 || (err == nil && !isPrefix) {
			tag := "F"
			if isPrefix {
				tag = "P"
			}
			c.write(stream, tag, string(chunk))
		}
		if err != nil {
			return
		}
	}
}

func (c *criWriter) line(stream, text string) { c.write(stream, "F", text) }

func (c *criWriter) write(stream, tag, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, "%s %s %s %s\n", time.Now().UTC().Format(time.RFC3339Nano), stream, tag, text)
}
