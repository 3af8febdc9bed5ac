package controlplane

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// removePods stops and removes every pod sandbox of the node's containerd
// through its CRI API, so its containers end, the CNI plugins delete the
// pods' veths and network namespaces, and their mounts go. The kubelet leaves
// pods running when it stops; this runs before containerd stops.
func removePods(socket string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("real node: connect to containerd: %w", err)
	}
	defer conn.Close()
	cri := runtimeapi.NewRuntimeServiceClient(conn)
	sandboxes, err := cri.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return fmt.Errorf("real node: list pods: %w", err)
	}
	var errs []error
	for _, sb := range sandboxes.Items {
		if _, err := cri.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			errs = append(errs, fmt.Errorf("real node: stop pod %s: %w", sb.Metadata.GetName(), err))
			continue
		}
		if _, err := cri.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			errs = append(errs, fmt.Errorf("real node: remove pod %s: %w", sb.Metadata.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

// sweepNode removes what a real node of the cluster in dir can leave on the
// host when it was not stopped cleanly (after a clean stop it finds only its
// network namespace): its shims and containers, the pods' network
// namespaces, cgroups, every mount under dir (deepest first), and its own
// network namespace with the veth to it. It runs after every stop and before
// every start (a start wipes dir's run/, which must hold no mount by then).
func sweepNode(layout Layout) error {
	namespace, _ := nodeNames(layout.Dir)
	killNodeProcesses(layout)
	errs := []error{
		removePodNetns(namespace),
		removeNodeCgroups(layout),
		unmountUnder(layout.Dir),
		deleteNodeNetwork(namespace),
	}
	return errors.Join(errs...)
}

// killNodeProcesses kills the shims serving the node's containerd (their
// command line names its socket) and the containers' processes (in the
// cgroup k8s.io/ID of a task the node's containerd knows), and waits a little
// for them to end.
func killNodeProcesses(layout Layout) {
	var cgroups []string
	for _, task := range nodeTasks(layout) {
		cgroups = append(cgroups, "/k8s.io/"+task+"\n")
	}
	var killed []int
	for _, pid := range pids() {
		proc := filepath.Join("/proc", strconv.Itoa(pid))
		cmdline, _ := os.ReadFile(filepath.Join(proc, "cmdline")) //nolint:errcheck // gone: not ours to kill
		args := strings.Split(string(cmdline), "\x00")
		shim := strings.HasSuffix(args[0], "containerd-shim-runc-v2") && strings.Contains(string(cmdline), layout.ContainerdSocket())
		cgroup, _ := os.ReadFile(filepath.Join(proc, "cgroup")) //nolint:errcheck // gone: not ours to kill
		container := slices.ContainsFunc(cgroups, func(c string) bool { return strings.Contains(string(cgroup), c) })
		if (shim || container) && syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		alive := slices.ContainsFunc(killed, func(pid int) bool { return syscall.Kill(pid, 0) == nil })
		if !alive {
			return
		}
	}
}

// nodeTasks returns the ids of the containers (pods' sandboxes included) the
// node's containerd has a task folder for.
func nodeTasks(layout Layout) []string {
	entries, _ := os.ReadDir(layout.nodePath("containerd/state/io.containerd.runtime.v2.task/k8s.io")) //nolint:errcheck // absent: no containers
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	return ids
}

func pids() []int {
	entries, _ := os.ReadDir("/proc") //nolint:errcheck // /proc is always there on Linux
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// removePodNetns deletes the CNI network namespaces whose interface has an
// address in the pod range of the node's namespace (those of the node's pods).
func removePodNetns(namespace string) error {
	subnet := podSubnet(namespace)
	if subnet == nil {
		return nil
	}
	entries, _ := os.ReadDir("/run/netns") //nolint:errcheck // absent: no namespaces
	var errs []error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "cni-") {
			continue
		}
		out, err := exec.Command("ip", "-n", e.Name(), "-o", "-4", "addr", "show").Output()
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(out)) {
			if ip, _, err := net.ParseCIDR(field); err == nil && subnet.Contains(ip) {
				if err := runIP("netns", "delete", e.Name()); err != nil {
					errs = append(errs, err)
				}
				break
			}
		}
	}
	return errors.Join(errs...)
}

// podSubnet returns the IPv4 network of the bridge in the node's namespace,
// nil when either is absent.
func podSubnet(namespace string) *net.IPNet {
	out, err := exec.Command("ip", "-n", namespace, "-o", "-4", "addr", "show", "dev", nodeBridge).Output()
	if err != nil {
		return nil
	}
	for _, field := range strings.Fields(string(out)) {
		if _, subnet, err := net.ParseCIDR(field); err == nil {
			return subnet
		}
	}
	return nil
}

// removeNodeCgroups removes the cgroups (v1 hierarchies and the v2 one beside
// them) of the containers the node's containerd knows, then containerd's
// parent k8s.io where it is left empty.
func removeNodeCgroups(layout Layout) error {
	tasks := nodeTasks(layout)
	hierarchies, err := filepath.Glob("/sys/fs/cgroup/*/k8s.io")
	if err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	for _, parent := range hierarchies {
		for _, task := range tasks {
			os.Remove(filepath.Join(parent, task)) //nolint:errcheck // absent, or still in use by a process that would not die
		}
		os.Remove(parent) //nolint:errcheck // not empty: another containerd's containers use it
	}
	return nil
}

// unmountUnder detaches every mount point below dir, deepest first.
func unmountUnder(dir string) error {
	points, err := mountsUnder(dir)
	if err != nil {
		return err
	}
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	var errs []error
	for _, p := range points {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("real node: unmount %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// mountsUnder lists the mount points below dir from /proc/self/mountinfo.
func mountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("real node: %w", err)
	}
	defer f.Close()
	return selectMountsUnder(f, dir)
}

// selectMountsUnder lists the mount points below dir in mountinfo (the
// format of /proc/self/mountinfo). The kernel names a mount point by its
// real path, so dir's real path is what they are compared with: a checkout
// reached through a symbolic link has its mounts found too.
func selectMountsUnder(mountinfo io.Reader, dir string) ([]string, error) {
	real, err := realPath(dir)
	if err != nil {
		return nil, err
	}
	prefix := real + string(filepath.Separator)
	var points []string
	scanner := bufio.NewScanner(mountinfo)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 5 {
			continue
		}
		point := unescapeMount(fields[4])
		if strings.HasPrefix(point, prefix) {
			points = append(points, point)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("real node: read mountinfo: %w", err)
	}
	return points, nil
}

// realPath is dir's absolute path with every symbolic link resolved, as the
// kernel names it; a dir that does not exist (nothing can be mounted below
// it) keeps its absolute path.
func realPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("real node: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, nil
	}
	if err != nil {
		return "", fmt.Errorf("real node: %w", err)
	}
	return real, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
