package devcluster

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// binaries are the programs Build puts into .cluster/bin.
var binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok", "localkube"}

// kubernetesVersion is stamped into the Kubernetes binaries; keep it equal to
// the k8s.io/kubernetes version in localkube/go.mod.
const kubernetesVersion = "v1.37.2"

// Build compiles the cluster binaries into .cluster/bin with `go build` in
// localkube/, unless they were built from the same sources already. The first
// build takes about 15 minutes on 2 cores; progress goes to the Cluster's writer.
func (c *Cluster) Build(ctx context.Context) error {
	stamp, err := c.sourceStamp()
	if err != nil {
		return err
	}
	stampFile := filepath.Join(c.binDir(), ".stamp")
	if c.binariesPresent() {
		if old, err := os.ReadFile(stampFile); err == nil && string(old) == stamp {
			return nil
		}
	}
	if err := os.MkdirAll(c.binDir(), 0o755); err != nil {
		return fmt.Errorf("devcluster: build: %w", err)
	}
	fmt.Fprintf(c.out, "devcluster: building the local cluster binaries into %s (first time: about 15 min on an idle 2-core machine, longer when it is busy; cached afterwards)\n", c.binDir())
	v := "k8s.io/component-base/version"
	major, minor, _ := strings.Cut(strings.TrimPrefix(kubernetesVersion, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	ldflags := fmt.Sprintf("-X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s", v, kubernetesVersion, v, major, v, minor)
	cmd := exec.CommandContext(ctx, "go", "build", "-v", "-o", c.binDir()+string(filepath.Separator),
		"-ldflags", ldflags, "./cmd/...", "sigs.k8s.io/kwok/cmd/kwok")
	cmd.Dir = filepath.Join(c.root, "localkube")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false")
	output, err := cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("devcluster: build: %w", err)
	}
	cmd.Stdout = c.out
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("devcluster: build: %w", err)
	}
	tail := reportProgress(c.out, output, started)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("devcluster: go build in localkube/ failed: %w\n%s", err, strings.Join(tail, "\n"))
	}
	fmt.Fprintf(c.out, "devcluster: built in %s\n", time.Since(started).Round(time.Second))
	if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
		return fmt.Errorf("devcluster: build: %w", err)
	}
	return nil
}

// reportProgress prints one line per 50 compiled packages (go build -v names
// each) and returns the last lines, which hold the errors when the build fails.
func reportProgress(out io.Writer, r io.Reader, started time.Time) []string {
	var tail []string
	count := 0
	scanner := bufio.NewScanner(r)
	for scanner.Scan() {
		line := scanner.Text()
		tail = append(tail, line)
		if len(tail) > 30 {
			tail = tail[1:]
		}
		count++
		if count%50 == 0 {
			fmt.Fprintf(out, "devcluster: build: %d packages compiled (%s), last %s\n", count, time.Since(started).Round(time.Second), line)
		}
	}
	return tail
}

func (c *Cluster) binariesPresent() bool {
	for _, name := range binaries {
		if _, err := os.Stat(filepath.Join(c.binDir(), name)); err != nil {
			return false
		}
	}
	return true
}

// sourceStamp hashes localkube/'s go.mod, go.sum and sources: the binaries are
// rebuilt when it changes.
func (c *Cluster) sourceStamp() (string, error) {
	h := sha256.New()
	dir := filepath.Join(c.root, "localkube")
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		// Tests do not go into the binaries: changing them needs no rebuild.
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path) //nolint:errcheck // path is under dir
		fmt.Fprintf(h, "%s %d\n", rel, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("devcluster: hash localkube sources: %w", err)
	}
	fmt.Fprintf(h, "version %s\n", kubernetesVersion)
	return hex.EncodeToString(h.Sum(nil)), nil
}
