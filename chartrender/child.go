package chartrender

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"helm.sh/helm/v3/pkg/action"
	helmrelease "helm.sh/helm/v3/pkg/release"
)

// childEnv marks a process started to render a chart; its value is the
// render's memory budget in bytes.
const childEnv = "STYRMIN_CHARTRENDER_MEMORY"

// response is what the child writes on its standard output.
type response struct {
	// Manifest is everything the chart creates, as Everything joins it.
	Manifest string
	// Failure is Helm's message when the chart does not render.
	Failure string
}

// init makes a process started by render (this very binary, whichever it
// is: the server, the CLI or a package's test binary) render the chart on
// its standard input, write the response and exit, before the program's
// main (or a test binary's tests) runs.
func init() {
	limit, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	if err := child(limit, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chartrender:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// child caps its own memory at limit bytes beyond what it holds now, then
// renders the request read from in and writes the response to out.
func child(limit string, in io.Reader, out io.Writer) error {
	memory, err := strconv.ParseInt(limit, 10, 64)
	if err != nil || memory <= 0 {
		return fmt.Errorf("%s=%q is not a number of bytes", childEnv, limit)
	}
	if err := capMemory(memory); err != nil {
		return err
	}
	// Where a cgroup (a pod's memory limit) runs out before the cap, the
	// kernel's OOM killer takes this process, not its parent.
	if err := os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0); err != nil {
		return fmt.Errorf("offer the render to the OOM killer first: %w", err)
	}
	req, err := decodeRequest(in)
	if err != nil {
		return err
	}
	var resp response
	if resp.Manifest, err = renderHere(req); err != nil {
		resp.Failure = err.Error()
		if len(resp.Failure) > maxFailure {
			resp.Failure = strings.ToValidUTF8(resp.Failure[:maxFailure], "") + "…"
		}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(resp); err != nil {
		return fmt.Errorf("write the render: %w", err)
	}
	_, err = out.Write(buf.Bytes())
	return err
}

// capMemory limits the process's address space (RLIMIT_AS) to what it maps
// now plus memory, so that an allocation past it fails and the Go runtime
// exits with "out of memory" (however large one allocation is, which a
// watchdog polling the heap could not stop).
func capMemory(memory int64) error {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return fmt.Errorf("read the process's size: %w", err)
	}
	fields := strings.Fields(string(statm))
	if len(fields) == 0 {
		return fmt.Errorf("read the process's size: /proc/self/statm is empty")
	}
	pages, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return fmt.Errorf("read the process's size: %w", err)
	}
	size := uint64(pages*int64(os.Getpagesize()) + memory)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: size, Max: size}); err != nil {
		return fmt.Errorf("cap the render's memory: %w", err)
	}
	return nil
}

// renderHere renders req in this process as `helm template` does.
func renderHere(req Request) (string, error) {
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.ClientOnly, install.DryRun, install.IsUpgrade = true, true, req.Upgrade
	install.Namespace, install.ReleaseName = req.Namespace, req.Name
	rel, err := install.RunWithContext(context.Background(), req.Chart, req.Values)
	if err != nil {
		return "", err
	}
	return Everything(rel), nil
}

// Everything joins what a revision creates: the CRDs of its chart's crds/
// folders (Helm creates them before the rest at install), its hooks and its
// manifest.
func Everything(rel *helmrelease.Release) string {
	var b strings.Builder
	if rel.Chart != nil {
		for _, crd := range rel.Chart.CRDObjects() {
			fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", crd.Filename, crd.File.Data)
		}
	}
	for _, h := range rel.Hooks {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	b.WriteString(rel.Manifest)
	return b.String()
}
