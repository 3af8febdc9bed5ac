package controlplane

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/styrmin/styrmin/localkube/pki"
)

// The real node's name and label. With the real node, every pod runs on it:
// the kwok node beside it carries SimulatedNodeTaint, so only a pod that
// tolerates it (a benchmark with hundreds of pods, say) is simulated.
const (
	// RealNodeName is the name the kubelet registers.
	RealNodeName = "styrmin-node"
	// RealNodeLabel=RealNodeLabelValue is on the real node.
	RealNodeLabel = "styrmin.io/node"
	// RealNodeLabelValue is RealNodeLabel's value.
	RealNodeLabelValue = "real"
	// SimulatedNodeTaint is the key of the kwok node's NoSchedule taint
	// while the real node runs.
	SimulatedNodeTaint = "styrmin.io/simulated"
)

// PauseImage is the sandbox image, built from cmd/pause and imported under
// this name only; containerd pins it, so the kubelet never removes it.
const PauseImage = "styrmin.local/pause:1"

// refusedRegistry is where containerd sends any pull (of any registry's
// image): a closed loopback port, so no pull ever leaves the machine.
const refusedRegistry = "https://127.0.0.1:9"

// NodeDir is the real node's state: containerd, the kubelet, CNI, pod logs.
func (l Layout) NodeDir() string { return filepath.Join(l.RunDir(), "node") }

// ContainerdSocket is the real node's private containerd socket.
func (l Layout) ContainerdSocket() string { return filepath.Join(l.NodeDir(), "containerd.sock") }

func (l Layout) nodePath(name string) string { return filepath.Join(l.NodeDir(), name) }

// writeContainerdConfig writes containerd's config (private root, state and
// socket; runc from bin/; the CNI config; no oom_score_adj below the
// runtime's own, which root lacks CAP_SYS_RESOURCE for; pulls refused) and
// returns its path.
func writeContainerdConfig(layout Layout) (string, error) {
	config := fmt.Sprintf(`version = 3
root = %q
state = %q

[grpc]
  address = %q

[ttrpc]
  address = %q

[plugins."io.containerd.internal.v1.opt"]
  path = %q

[plugins."io.containerd.cri.v1.runtime"]
  restrict_oom_score_adj = true

[plugins."io.containerd.cri.v1.runtime".cni]
  bin_dirs = ["/usr/lib/cni"]
  conf_dir = %q
  max_conf_num = 1

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
  BinaryName = %q
  Root = %q

[plugins."io.containerd.cri.v1.images".pinned_images]
  sandbox = %q

[plugins."io.containerd.cri.v1.images".registry]
  config_path = %q
`, layout.nodePath("containerd/root"), layout.nodePath("containerd/state"),
		layout.ContainerdSocket(), layout.ContainerdSocket()+".ttrpc",
		layout.nodePath("containerd/opt"), layout.nodePath("cni"),
		filepath.Join(layout.BinDir(), "runc"), layout.nodePath("runc"),
		PauseImage, layout.nodePath("registry"))
	hosts := fmt.Sprintf("# Every registry: a closed loopback port. Images are imported, never pulled.\nserver = %q\n", refusedRegistry)
	if err := writeFile(layout.nodePath("registry/_default/hosts.toml"), []byte(hosts)); err != nil {
		return "", err
	}
	path := layout.nodePath("containerd.toml")
	return path, writeFile(path, []byte(config))
}

// writeCNIConfig writes the pod network: the node's bridge, addresses from
// host-local (leases under the node's folder), no masquerade and no default
// route (routes to the Services and the host only: nothing is routed off the
// machine), portmap for hostPorts.
func writeCNIConfig(layout Layout, n nodeNetwork) error {
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       n.Name,
		"plugins": []any{
			map[string]any{
				"type":        "bridge",
				"bridge":      n.Bridge,
				"isGateway":   false, // the bridge has its address already; no ip_forward change
				"ipMasq":      false,
				"hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"ranges":  [][]map[string]string{{{"subnet": n.Subnet.String(), "gateway": n.Gateway.String()}}},
					"routes":  podRoutes(n),
					"dataDir": layout.nodePath("cni-ipam"),
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	data, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return fmt.Errorf("real node: CNI config: %w", err)
	}
	return writeFile(layout.nodePath("cni/10-styrmin.conflist"), data)
}

// writeKubeletConfig writes the KubeletConfiguration (measured on this kind
// of machine: cgroups v1 allowed, cgroupfs, no QoS cgroups; client
// certificates and webhook authorization for its API, nobody anonymous; cluster
// DNS on the node IP) and returns its path.
// podRoutes are the pods' routes beside their own range: the Service range
// and the host's end of the node's veth (the API server), via the node.
func podRoutes(n nodeNetwork) []map[string]string {
	return []map[string]string{
		{"dst": n.Services.String(), "gw": n.Gateway.String()},
		{"dst": n.Host.String() + "/32", "gw": n.Gateway.String()},
	}
}

func writeKubeletConfig(layout Layout, p ports, n nodeNetwork, files pki.Files, node pki.NodeFiles) (string, error) {
	config := map[string]any{
		"apiVersion":               "kubelet.config.k8s.io/v1beta1",
		"kind":                     "KubeletConfiguration",
		"failCgroupV1":             false,
		"cgroupDriver":             "cgroupfs",
		"cgroupsPerQOS":            false,
		"enforceNodeAllocatable":   []string{},
		"containerRuntimeEndpoint": "unix://" + layout.ContainerdSocket(),
		"failSwapOn":               false,
		"address":                  n.Gateway.String(),
		"port":                     p.kubelet,
		"healthzBindAddress":       "127.0.0.1",
		"healthzPort":              p.kubeletHealthz,
		"readOnlyPort":             0,
		"tlsCertFile":              node.KubeletServingCert,
		"tlsPrivateKeyFile":        node.KubeletServingKey,
		"authentication": map[string]any{
			"anonymous": map[string]bool{"enabled": false},
			"webhook":   map[string]bool{"enabled": true},
			"x509":      map[string]string{"clientCAFile": files.CACert},
		},
		"authorization": map[string]string{"mode": "Webhook"},
		"resolvConf":    "", // pods get cluster DNS only, never the host's resolvers
		"clusterDNS":    []string{n.Gateway.String()},
		"clusterDomain": ClusterDomain,
		"podLogsDir":    layout.nodePath("pod-logs"),
		// Imported images cannot be pulled again: never collect them, never evict for disk.
		"imageGCHighThresholdPercent": 100,
		"imageGCLowThresholdPercent":  99,
		"evictionHard":                map[string]string{"memory.available": "1%", "nodefs.available": "1%", "imagefs.available": "1%"},
		"makeIPTablesUtilChains":      false,
		"oomScoreAdj":                 0,
	}
	data, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return "", fmt.Errorf("real node: kubelet config: %w", err)
	}
	path := layout.nodePath("kubelet.json")
	return path, writeFile(path, data)
}

func kubeletArgs(layout Layout, n nodeNetwork, configPath, kubeconfig string) []string {
	return []string{
		"--config=" + configPath,
		"--kubeconfig=" + kubeconfig,
		"--root-dir=" + layout.nodePath("kubelet"),
		"--cert-dir=" + layout.nodePath("kubelet/pki"),
		"--hostname-override=" + RealNodeName,
		"--node-ip=" + n.Gateway.String(),
		"--node-labels=" + RealNodeLabel + "=" + RealNodeLabelValue,
	}
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("real node: %w", err)
	}
	return nil
}
