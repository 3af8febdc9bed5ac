package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// hostState is what a real node may add to the host, as seen from outside.
type hostState struct {
	links, netns, rules, routes, mounts, cgroups []string
}

func snapshot(t *testing.T, dir string) hostState {
	t.Helper()
	var s hostState
	out, err := exec.Command("ip", "-o", "link").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// "7: name@peer: <FLAGS> ...": the name, without the changing details.
		fields := strings.Fields(line)
		s.links = append(s.links, strings.TrimSuffix(fields[1], ":"))
	}
	entries, _ := os.ReadDir("/run/netns") //nolint:errcheck // absent: no netns
	for _, e := range entries {
		s.netns = append(s.netns, e.Name())
	}
	dumps := [][]string{{"iptables-save"}, {"ip6tables-save"}}
	if _, err := exec.LookPath("nft"); err == nil {
		dumps = append(dumps, []string{"nft", "list", "ruleset"})
	}
	for _, dump := range dumps {
		s.rules = append(s.rules, commandLines(t, dump...)...)
	}
	for _, family := range []string{"-4", "-6"} {
		s.routes = append(s.routes, commandLines(t, "ip", family, "-o", "route", "show", "table", "all")...)
	}
	if s.mounts, err = mountsUnder(dir); err != nil {
		t.Fatal(err)
	}
	// containerd's containers' cgroups, under k8s.io in every hierarchy.
	cgroupFiles, err := filepath.Glob("/sys/fs/cgroup/*/k8s.io/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cgroupFiles {
		if info, err := os.Stat(f); err == nil && info.IsDir() {
			s.cgroups = append(s.cgroups, f)
		}
	}
	return s
}

// commandLines runs a command that dumps host state and returns its lines,
// each prefixed with the command's name, without comments and counters.
func commandLines(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, args[0]+" "+stripCounters(line))
		}
	}
	return lines
}

// stripCounters drops the packet counters of a chain line (":INPUT ACCEPT [5:300]").
func stripCounters(line string) string {
	if i := strings.LastIndex(line, " ["); strings.HasPrefix(line, ":") && i > 0 {
		return line[:i]
	}
	return line
}

// nodeCluster is the layout of a cluster in a folder of its own that uses
// the checkout's .cluster/bin, built with the real node.
func nodeCluster(t *testing.T) Layout {
	t.Helper()
	if os.Getenv("STYRMIN_LOCAL_NODE") == NodeSimulated {
		t.Skip("STYRMIN_LOCAL_NODE=kwok: only the simulated node")
	}
	return clusterFolder(t, "a whole local cluster with a real node", "kubelet", "`make cluster`")
}

// clusterFolder is the layout of a cluster in a temporary folder whose bin/
// is the checkout's .cluster/bin. The test is skipped under -short (it
// starts what) and when bin/ lacks binary (build says how to build it).
func clusterFolder(t *testing.T, what, binary, build string) Layout {
	t.Helper()
	if testing.Short() {
		t.Skipf("starts %s, which -short leaves out", what)
	}
	bin, err := filepath.Abs(filepath.Join("..", "..", ".cluster", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, binary)); err != nil {
		t.Fatalf("%s is not built in %s: run %s once", binary, bin, build)
	}
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "bin")); err != nil {
		t.Fatal(err)
	}
	// The node's images are built once and shared through the checkout's cache.
	images := filepath.Join(filepath.Dir(bin), "images")
	if err := os.MkdirAll(images, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(images, Layout{Dir: dir}.ImagesDir()); err != nil {
		t.Fatal(err)
	}
	return Layout{Dir: dir}
}

// TestRealNodeStopLeavesNothing starts a cluster with a real node in a
// folder of its own, runs a pod on it, stops the cluster and compares the
// host's links, network namespaces, iptables (and nftables) rules, routes,
// and the mounts under the folder with what they were before.
func TestRealNodeStopLeavesNothing(t *testing.T) {
	layout := nodeCluster(t)
	before := snapshot(t, layout.Dir)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, layout, Options{RealNode: true}, t.Logf, func(ctx context.Context, kubeconfig string) error {
			running <- runPausePod(ctx, kubeconfig)
			<-ctx.Done()
			return nil
		})
	}()
	select {
	case err := <-running:
		if err != nil {
			cancel()
			<-done
			t.Fatal(err)
		}
	case err := <-done:
		t.Fatalf("cluster stopped before its pod ran: %v", err)
	}
	during := snapshot(t, layout.Dir)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("stop: %v", err)
	}
	after := snapshot(t, layout.Dir)
	if len(during.mounts) == 0 || len(during.links) <= len(before.links) || len(during.netns) <= len(before.netns) || len(during.cgroups) <= len(before.cgroups) {
		t.Fatalf("a running pod left no mark to clean (links %v, netns %v, mounts %v, cgroups %v)", during.links, during.netns, during.mounts, during.cgroups)
	}
	for _, c := range []struct {
		what          string
		before, after []string
	}{
		{"links", before.links, after.links},
		{"network namespaces", before.netns, after.netns},
		{"iptables and nftables rules", before.rules, after.rules},
		{"routes", before.routes, after.routes},
		{"mounts under the cluster folder", before.mounts, after.mounts},
		{"container cgroups", before.cgroups, after.cgroups},
	} {
		if !slices.Equal(c.before, c.after) {
			t.Errorf("%s before start:\n%s\nafter stop:\n%s", c.what, strings.Join(c.before, "\n"), strings.Join(c.after, "\n"))
		}
	}
}

// runPausePod runs a pod of the pause image on the real node and waits until
// it runs with an IP.
func runPausePod(ctx context.Context, kubeconfig string) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	core, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "sleeper"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{RealNodeLabel: RealNodeLabelValue},
			Containers:   []corev1.Container{{Name: "main", Image: PauseImage, ImagePullPolicy: corev1.PullNever}},
		},
	}
	if _, err := core.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	var status corev1.PodStatus
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := core.CoreV1().Pods("default").Get(ctx, "sleeper", metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		status = got.Status
		return status.Phase == corev1.PodRunning && status.PodIP != "", nil
	})
	if err != nil {
		return fmt.Errorf("pod sleeper not running: %w (status %+v)", err, status)
	}
	return nil
}

// TestRealNodeStartsAgainAfterACrash kills the supervisor (localkube) of a
// cluster whose real node runs a pod, as a crash would: its components die
// with it, the pod's shim, processes, network namespace and mounts stay. The
// next start in the same folder must sweep them and come up, and its stop
// must leave the host as it was before the first start.
func TestRealNodeStartsAgainAfterACrash(t *testing.T) {
	layout := nodeCluster(t)
	before := snapshot(t, layout.Dir)

	crashed := startLocalkube(t, layout)
	if err := runPausePod(context.Background(), layout.Kubeconfig()); err != nil {
		t.Fatal(err)
	}
	if err := crashed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	crashed.Wait() //nolint:errcheck // killed
	left := snapshot(t, layout.Dir)
	if len(left.netns) <= len(before.netns) || len(left.mounts) == 0 {
		t.Fatalf("the crash left nothing to sweep (netns %v, mounts %v)", left.netns, left.mounts)
	}

	again := startLocalkube(t, layout)
	if err := again.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := again.Wait(); err != nil {
		t.Fatalf("stop after the restart: %v", err)
	}
	after := snapshot(t, layout.Dir)
	if !slices.Equal(before.links, after.links) || !slices.Equal(before.netns, after.netns) ||
		!slices.Equal(before.rules, after.rules) || !slices.Equal(before.routes, after.routes) ||
		!slices.Equal(before.mounts, after.mounts) || !slices.Equal(before.cgroups, after.cgroups) {
		t.Fatalf("before the first start: %+v\nafter the restart's stop: %+v", before, after)
	}
}

// startLocalkube runs `localkube run -node real` on layout and waits until it
// is ready; the test's end kills it if it still runs.
func startLocalkube(t *testing.T, layout Layout) *exec.Cmd {
	t.Helper()
	logFile, err := os.Create(filepath.Join(t.TempDir(), "localkube.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(layout.BinDir(), "localkube"), "run", "-dir", layout.Dir, "-node", "real")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // reporting happens in the test
			cmd.Wait()                          //nolint:errcheck // idem
		}
	})
	// Ready when ready.json names this process (a crashed one leaves its own).
	err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		data, err := os.ReadFile(layout.ReadyFile())
		var state State
		return err == nil && json.Unmarshal(data, &state) == nil && state.PID == cmd.Process.Pid, nil
	})
	if err != nil {
		log, _ := os.ReadFile(logFile.Name()) //nolint:errcheck // best effort
		t.Fatalf("localkube not ready: %v\n%s", err, log)
	}
	return cmd
}
