package controlplane

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
// host after its processes ended, cleanly or not: container shims still
// serving its containerd, every mount under dir (deepest first), and its
// bridge. It runs after every stop and before every start (a start wipes
// dir's run/, which must hold no mount by then).
func sweepNode(layout Layout) error {
	var errs []error
	if err := killShims(layout.ContainerdSocket()); err != nil {
		errs = append(errs, err)
	}
	if err := unmountUnder(layout.Dir); err != nil {
		errs = append(errs, err)
	}
	bridge, _ := nodeNames(layout.Dir)
	if err := deleteBridge(bridge); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// killShims kills the containerd-shim-runc-v2 processes started for the
// containerd at socket (their command line names its address).
func killShims(socket string) error {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if strings.HasSuffix(args[0], "containerd-shim-runc-v2") && strings.Contains(string(cmdline), socket) {
			syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // it may have exited meanwhile
		}
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
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	var points []string
	scanner := bufio.NewScanner(f)
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
	return points, scanner.Err()
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
