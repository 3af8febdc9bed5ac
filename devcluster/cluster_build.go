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
	"sort"
	"strings"
	"time"
)

// binaries are the programs build puts into .cluster/bin: localkube/cmd/*
// (coredns and pause are the real node's, but built from localkube's own
// sources, so the source stamp rebuilds them) and kwok.
var binaries = []string{"coredns", "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok", "localkube", "pause"}

// nodeBinaries are the real node's programs built from other modules at
// fixed versions, built only when it is on.
var nodeBinaries = []string{"containerd", "containerd-shim-runc-v2", "ctr", "runc", "kubelet", "kube-proxy"}

// The real node's runtime versions. containerd and runc are built by `go
// install` from their own modules (their go.mod, not localkube's); the kubelet
// and kube-proxy in localkube/ at kubernetesVersion.
const (
	containerdModule  = "github.com/containerd/containerd/v2"
	containerdVersion = "v2.2.9"
	runcModule        = "github.com/opencontainers/runc"
	runcVersion       = "v1.3.4"
)

// kubernetesVersion is stamped into the Kubernetes binaries; keep it equal to
// the k8s.io/kubernetes version in localkube/go.mod.
const kubernetesVersion = "v1.37.2"

// build compiles the cluster binaries into .cluster/bin with `go build` in
// localkube/, unless they were built from the same sources already. The first
// build takes about 9 minutes on 2 cores; progress goes to the Cluster's writer.
func (c *Cluster) build(ctx context.Context) error {
	stamp, err := c.sourceStamp()
	if err != nil {
		return err
	}
	stampFile := filepath.Join(c.binDir(), ".stamp")
	if !c.built(binaries, stampFile, stamp) {
		if err := os.MkdirAll(c.binDir(), 0o755); err != nil {
			return fmt.Errorf("devcluster: build: %w", err)
		}
		fmt.Fprintf(c.out, "devcluster: building the local cluster binaries into %s (first time: about 9 min on an idle 2-core machine, longer when it is busy; cached afterwards)\n", c.binDir())
		if err := c.goBuild(ctx, "go build in localkube/", "build", "-v", "-o", c.binDir()+string(filepath.Separator),
			"-ldflags", kubernetesLdflags(), "./cmd/...", "sigs.k8s.io/kwok/cmd/kwok"); err != nil {
			return err
		}
		if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
			return fmt.Errorf("devcluster: build: %w", err)
		}
	}
	if c.node == NodeReal {
		if err := c.buildNode(ctx); err != nil {
			return err
		}
		return c.buildNodeImages(ctx)
	}
	return nil
}

// buildNodeImages builds the real node's images from Debian packages into
// .cluster/images (about a minute the first time; cached afterwards), so
// that the start, which has a deadline, only imports them.
func (c *Cluster) buildNodeImages(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir(), "localkube"), "node-images", "-dir", c.Dir())
	cmd.Stdout, cmd.Stderr = io.Discard, c.out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("devcluster: build the node's images: %w (see the lines above)", err)
	}
	return nil
}

// buildNode builds the real node's binaries into .cluster/bin (the first
// time about 8 min on a busy 2-core machine, mostly downloading and compiling
// containerd; cached afterwards by the versions in .stamp-node and by
// localkube/go.sum, which fixes the kubelet's and kube-proxy's dependencies).
func (c *Cluster) buildNode(ctx context.Context) error {
	stampFile := filepath.Join(c.binDir(), ".stamp-node")
	sums, err := os.ReadFile(filepath.Join(c.root, "localkube", "go.sum"))
	if err != nil {
		return fmt.Errorf("devcluster: build: %w", err)
	}
	stamp := fmt.Sprintf("containerd %s runc %s kubelet and kube-proxy %s with localkube/go.sum %x\n",
		containerdVersion, runcVersion, kubernetesVersion, sha256.Sum256(sums))
	if c.built(nodeBinaries, stampFile, stamp) {
		return nil
	}
	fmt.Fprintf(c.out, "devcluster: building the real node (containerd %s, runc %s, kubelet and kube-proxy %s) into %s (first time: several minutes; cached afterwards)\n",
		containerdVersion, runcVersion, kubernetesVersion, c.binDir())
	steps := [][]string{
		{"install", "-v", "-ldflags", stripped, "-tags", "no_btrfs no_devmapper no_zfs",
			containerdModule + "/cmd/containerd@" + containerdVersion,
			containerdModule + "/cmd/containerd-shim-runc-v2@" + containerdVersion,
			containerdModule + "/cmd/ctr@" + containerdVersion},
		// cgo (on where a C compiler is) with Debian's libseccomp-dev (scripts/ensure-node-packages).
		{"install", "-v", "-ldflags", stripped, "-tags", "seccomp", runcModule + "@" + runcVersion},
		{"build", "-v", "-o", c.binDir() + string(filepath.Separator), "-ldflags", kubernetesLdflags(), "k8s.io/kubernetes/cmd/kubelet", "k8s.io/kubernetes/cmd/kube-proxy"},
	}
	for _, args := range steps {
		if err := c.goBuild(ctx, "go "+args[0]+" of the real node", args...); err != nil {
			return err
		}
	}
	if err := os.WriteFile(stampFile, []byte(stamp), 0o644); err != nil {
		return fmt.Errorf("devcluster: build: %w", err)
	}
	return nil
}

// nodeHostFiles are files of the Debian packages the real node needs, which
// scripts/ensure-node-packages installs, by package.
var nodeHostFiles = map[string]string{
	"containernetworking-plugins": "/usr/lib/cni/bridge",
	"libseccomp-dev":              "/usr/include/seccomp.h",
	"iptables":                    "/usr/sbin/iptables",
	"mmdebstrap":                  "/usr/bin/mmdebstrap",
}

// missingFiles returns the packages of files (package → file) whose file is
// absent, sorted.
func missingFiles(files map[string]string) []string {
	var missing []string
	for pkg, path := range files {
		if _, err := os.Stat(path); err != nil {
			missing = append(missing, pkg)
		}
	}
	sort.Strings(missing)
	return missing
}

// built reports whether names are all in .cluster/bin, built for stamp.
func (c *Cluster) built(names []string, stampFile, stamp string) bool {
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(c.binDir(), name)); err != nil {
			return false
		}
	}
	old, err := os.ReadFile(stampFile)
	return err == nil && string(old) == stamp
}

// stripped are the linker flags of every cluster binary: no symbol table and
// no DWARF, which nothing here reads (stack traces come from the runtime's own
// tables). Linking kube-apiserver takes half as long without them.
const stripped = "-s -w"

// kubernetesLdflags stamp kubernetesVersion into a Kubernetes binary, stripped.
func kubernetesLdflags() string {
	v := "k8s.io/component-base/version"
	major, minor, _ := strings.Cut(strings.TrimPrefix(kubernetesVersion, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	return fmt.Sprintf("%s -X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s", stripped, v, kubernetesVersion, v, major, v, minor)
}

// goBuild runs go with args in localkube/ (GOBIN=.cluster/bin for `go
// install`), reporting progress; what names the step in messages.
func (c *Cluster) goBuild(ctx context.Context, what string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = filepath.Join(c.root, "localkube")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false", "GOBIN="+c.binDir())
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
		return fmt.Errorf("devcluster: %s failed: %w\n%s", what, err, strings.Join(tail, "\n"))
	}
	fmt.Fprintf(c.out, "devcluster: %s done in %s\n", what, time.Since(started).Round(time.Second))
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
