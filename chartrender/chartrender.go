// Package chartrender renders a driver's Helm chart offline, as `helm
// template` does, in a child process of the running binary with a memory cap,
// a deadline and a cap on what it may print: a chart is third-party content,
// and Helm's template engine cannot be stopped or bounded from inside.
package chartrender

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"helm.sh/helm/v3/pkg/chart"

	styrmin "github.com/styrmin/styrmin"
)

// The budget of one chart render. A real chart renders in well under a
// second and a few MiB; a chart that needs more is refused.
const (
	// MaxMemory bounds the memory (address space) the render's child process
	// may take beyond what it holds when it starts.
	MaxMemory = 512 << 20
	// MaxTime bounds the wall time of one render, the child's start included.
	MaxTime = 30 * time.Second
	// MaxOutput bounds the manifests one render produces (Helm stores a
	// release's record, gzipped, in a Secret of at most 1 MiB).
	MaxOutput = 16 << 20
)

// self is the running binary (Linux's name for it), which the child runs.
const self = "/proc/self/exe"

// maxFailure bounds Helm's message of a chart that does not render, and
// what the parent keeps of the child's standard error.
const maxFailure = 8 << 10

// Request is what to render: a chart with values for a release.
type Request struct {
	// Chart is the chart, with its subcharts.
	Chart *chart.Chart
	// Values are the release's values; the chart's defaults fill the rest.
	Values map[string]any
	// Namespace and Name are the release's.
	Namespace, Name string
	// Upgrade renders with .Release.IsUpgrade true (as `helm template
	// --is-upgrade`), as an upgrade renders the chart.
	Upgrade bool
}

// budget is the limits of one render: the constants but in this package's tests.
type budget struct {
	memory int64
	time   time.Duration
	output int64
}

// full is the budget of every render.
var full = budget{memory: MaxMemory, time: MaxTime, output: MaxOutput}

// Render renders req's chart without a cluster (the chart's `lookup` calls
// find nothing) in a child process within the budget, and returns everything
// it would create, as Everything joins it. Errors: EINVALID when the chart
// does not render with the values (with Helm's message) or passes a budget
// (the message says which); ctx's error when ctx ends first.
func Render(ctx context.Context, req Request) (string, error) {
	return render(ctx, req, full)
}

// render is Render within b.
func render(ctx context.Context, req Request, b budget) (string, error) {
	input, err := encodeRequest(req)
	if err != nil {
		return "", fmt.Errorf("chartrender: %s: %w", req.Name, err)
	}
	renderCtx, cancel := context.WithTimeout(ctx, b.time)
	defer cancel()
	stderr := &prefix{max: maxFailure}
	cmd := childCommand(renderCtx, b, input, stderr)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", fmt.Errorf("chartrender: %s: %w", req.Name, err)
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("chartrender: %s: start the render: %w", req.Name, err)
	}
	// The response holds the manifests and a little framing, or a failure
	// of at most maxFailure bytes.
	limit := b.output + maxFailure
	out, readErr := io.ReadAll(io.LimitReader(stdout, limit+1))
	tooLarge := int64(len(out)) > limit
	if tooLarge {
		cmd.Cancel() //nolint:errcheck // the group may be gone already
	}
	waitErr := cmd.Wait()
	switch {
	case tooLarge:
		return "", tooMuchOutput(req, b)
	case waitErr == nil && readErr == nil:
	case ctx.Err() != nil:
		return "", fmt.Errorf("chartrender: %s: %w", req.Name, ctx.Err())
	case renderCtx.Err() != nil:
		return "", failure(req, fmt.Sprintf("take longer than %s to render", b.time), "look for a template that loops or includes other templates many times", renderCtx.Err())
	case refusedMemory(stderr.String()) || killed(waitErr):
		return "", failure(req, fmt.Sprintf("need more than %d MiB of memory to render", b.memory>>20), "look for a template that builds a very large text or list", waitErr)
	default:
		return "", fmt.Errorf("chartrender: %s: the render stopped: %w: %s", req.Name, errors.Join(waitErr, readErr), stderr.String())
	}
	return decodeResponse(req, b, out)
}

// childCommand is the child process of a render within b, reading input
// and writing its errors to stderr: the running binary, even when a newer
// one replaced it on disk since, with nothing of this process's environment
// (secrets included) but the marker, in a process group of its own that is
// killed when ctx ends.
func childCommand(ctx context.Context, b budget, input []byte, stderr io.Writer) *exec.Cmd {
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = []string{childEnv + "=" + strconv.FormatInt(b.memory, 10)}
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	return cmd
}

// decodeResponse reads the child's response: the manifests, or Helm's
// failure as an EINVALID error.
func decodeResponse(req Request, b budget, out []byte) (string, error) {
	var resp response
	if err := gob.NewDecoder(bytes.NewReader(out)).Decode(&resp); err != nil {
		return "", fmt.Errorf("chartrender: %s: read the render: %w", req.Name, err)
	}
	if resp.Failure != "" {
		return "", &styrmin.Error{Code: styrmin.EINVALID, Message: "Helm could not render the chart: " + resp.Failure,
			Err: fmt.Errorf("chartrender: %s: %s", req.Name, resp.Failure)}
	}
	if int64(len(resp.Manifest)) > b.output {
		return "", tooMuchOutput(req, b)
	}
	return resp.Manifest, nil
}

// ErrBudget is in the chain of every error of a render that passed a budget.
var ErrBudget = errors.New("past the budget of a chart's render")

// errOutput is the cause of a render stopped at its output budget.
var errOutput = errors.New("output budget passed")

// failure is the EINVALID error of a chart that passed a budget: what its
// templates did, and what its author can do; cause is for the log.
func failure(req Request, did, todo string, cause error) error {
	name := "the chart"
	if req.Chart != nil && req.Chart.Metadata != nil {
		name = "chart " + req.Chart.Metadata.Name
	}
	return &styrmin.Error{Code: styrmin.EINVALID,
		Message: fmt.Sprintf("The templates of %s %s, past the budget of a chart's render; %s.", name, did, todo),
		Err:     fmt.Errorf("chartrender: %s: %w: %w", req.Name, ErrBudget, cause)}
}

// refusedMemory reports whether a child's standard error says that it died
// because the memory cap refused an allocation: the Go runtime's words, and
// those of the race detector's runtime in test binaries built with -race.
func refusedMemory(stderr string) bool {
	for _, words := range []string{"out of memory", "address space collisions for -race mode", "ThreadSanitizer failed to allocate"} {
		if strings.Contains(stderr, words) {
			return true
		}
	}
	return false
}

// killed reports whether the child was killed by SIGKILL when this process
// did not kill it: by the kernel's OOM killer, when the cgroup that holds
// both processes ran out of memory before the child's cap.
func killed(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	status, ok := exit.Sys().(syscall.WaitStatus)
	return ok && status.Signaled() && status.Signal() == syscall.SIGKILL
}

// tooMuchOutput is the failure of a chart whose manifests pass b.output.
func tooMuchOutput(req Request, b budget) error {
	return failure(req, fmt.Sprintf("render more than %d MiB of manifests", b.output>>20), "create fewer or smaller objects", errOutput)
}

// prefix is a writer that keeps the first max bytes written to it and
// discards the rest.
type prefix struct {
	buf bytes.Buffer
	max int
}

// Write keeps what fits of p and reports all of it written.
func (p *prefix) Write(b []byte) (int, error) {
	if room := p.max - p.buf.Len(); room > 0 {
		p.buf.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

// String is what was kept.
func (p *prefix) String() string { return p.buf.String() }
