package devcluster

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// NodeEnv chooses the local cluster's node. Unset (or "real"), the cluster
// runs a real node (containerd and a kubelet) where every pod runs; set to
// NodeSimulated ("kwok"), it runs only kwok's simulated node, whose pods
// report Running without running (docs/local-cluster.md).
const NodeEnv = "STYRMIN_LOCAL_NODE"

// The node kinds, as localkube's -node flag and its ready.json name them.
const (
	NodeReal      = "real"
	NodeSimulated = "kwok"
)

// requestedNode is the node NodeEnv asks for.
func requestedNode() string {
	if os.Getenv(NodeEnv) == NodeSimulated {
		return NodeSimulated
	}
	return NodeReal
}

// containerSupport returns nil when this machine can run the real node's
// containers, or an error that says in one sentence why not.
func containerSupport() error {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "the real node needs root")
	}
	if !hasOverlay() {
		missing = append(missing, "no overlay filesystem")
	}
	if !hasMemoryCgroup() {
		missing = append(missing, "no memory cgroup")
	}
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		missing = append(missing, "no network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		missing = append(missing, "no ip command (iproute2)")
	}
	if pkgs := missingFiles(nodeHostFiles); len(pkgs) > 0 {
		missing = append(missing, "missing Debian packages "+strings.Join(pkgs, ", ")+", which ./scripts/ensure-node-packages installs")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("this machine cannot run containers (%s)", strings.Join(missing, ", "))
}

// hasOverlay reports whether the kernel has overlayfs, loading its module
// when it is not loaded yet.
func hasOverlay() bool {
	listed := func() bool {
		data, err := os.ReadFile("/proc/filesystems")
		return err == nil && strings.Contains(string(data), "\toverlay\n")
	}
	if listed() {
		return true
	}
	exec.Command("modprobe", "overlay").Run() //nolint:errcheck // listed() below tells
	return listed()
}

// hasMemoryCgroup reports whether a memory controller is mounted, in the
// cgroup v1 layout or in the unified (v2) one.
func hasMemoryCgroup() bool {
	if info, err := os.Stat("/sys/fs/cgroup/memory"); err == nil && info.IsDir() {
		return true
	}
	data, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers")
	return err == nil && strings.Contains(" "+string(data)+" ", " memory ")
}
