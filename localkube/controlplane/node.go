package controlplane

import (
	"context"
	"net"
	"os"
	"path/filepath"

	"github.com/styrmin/styrmin/localkube/ociimage"
	"github.com/styrmin/styrmin/localkube/pki"
)

// startFunc starts a component from bin/ in the network namespace namespace
// (the host's when empty) and waits until ready succeeds.
type startFunc func(namespace, name string, args []string, ready func(context.Context) error) (*process, error)

// realNode is the kubelet node beside kwok's: its network and certificates.
type realNode struct {
	net   nodeNetwork
	files pki.NodeFiles
}

// serverIPs are the addresses the API server's certificate needs beside
// loopback when the node runs: the host's end of the veth and the
// `kubernetes` Service's ClusterIP. None without a node (n is zero).
func (n nodeNetwork) serverIPs() []net.IP {
	if n.Namespace == "" {
		return nil
	}
	return []net.IP{n.Host, n.APIServiceIP()}
}

// prepareRealNode creates the node's network and issues its certificates;
// the API server needs them before it starts.
func prepareRealNode(n nodeNetwork, files pki.Files) (realNode, error) {
	if err := n.create(); err != nil {
		return realNode{}, err
	}
	node, err := pki.GenerateNode(files, RealNodeName, n.Gateway)
	if err != nil {
		return realNode{}, err
	}
	return realNode{net: n, files: node}, nil
}

// apiserverNodeArgs let the API server authorize the kubelet as a node, reach
// the kubelet's API with a client certificate (checking its serving one),
// listen on the host's end of the node's veth, and publish that address as
// the `kubernetes` Service's endpoint, in the node's Service range.
func (r realNode) apiserverNodeArgs(files pki.Files) []string {
	return []string{
		"--authorization-mode=Node,RBAC",
		"--kubelet-client-certificate=" + r.files.APIServerKubeletCert,
		"--kubelet-client-key=" + r.files.APIServerKubeletKey,
		"--kubelet-certificate-authority=" + files.CACert,
		"--bind-address=" + r.net.Host.String(),
		"--advertise-address=" + r.net.Host.String(),
		"--endpoint-reconciler-type=lease",
		"--service-cluster-ip-range=" + r.net.Services.String(),
	}
}

// start runs, in the node's network namespace, containerd (with the pause
// image imported), the kubelet, kube-proxy and cluster DNS, waiting until
// the kubelet's node is Ready and each serves. Stopping containerd first
// removes every pod through its CRI API.
func (r realNode) start(ctx context.Context, layout Layout, p ports, server string, files pki.Files, client *adminClient, start startFunc) error {
	containerdConfig, err := writeContainerdConfig(layout)
	if err != nil {
		return err
	}
	if err := writeCNIConfig(layout, r.net); err != nil {
		return err
	}
	// containerd finds its shim, containerd-shim-runc-v2, on PATH.
	os.Setenv("PATH", layout.BinDir()+string(os.PathListSeparator)+os.Getenv("PATH")) //nolint:errcheck // a valid name and value
	containerd, err := start(r.net.Namespace, "containerd", []string{"--config", containerdConfig}, socketExists(layout.ContainerdSocket()))
	if err != nil {
		return err
	}
	containerd.beforeStop = func() error { return removePods(layout.ContainerdSocket()) }
	pause := ociimage.Image{Name: PauseImage, Binary: filepath.Join(layout.BinDir(), "pause"), Path: "/pause"}
	if err := ImportImage(ctx, layout, pause); err != nil {
		return err
	}
	kubeconfig := layout.nodePath("kubelet.kubeconfig")
	if err := pki.WriteClientKubeconfig(kubeconfig, server, files.CACert, r.files.KubeletCert, r.files.KubeletKey); err != nil {
		return err
	}
	kubeletConfig, err := writeKubeletConfig(layout, p, r.net, files, r.files)
	if err != nil {
		return err
	}
	if _, err := start(r.net.Namespace, "kubelet", kubeletArgs(layout, r.net, kubeletConfig, kubeconfig), client.nodeReady(RealNodeName)); err != nil {
		return err
	}
	if err := r.startKubeProxy(layout, server, files, start); err != nil {
		return err
	}
	return r.startDNS(ctx, layout, server, files, client, start)
}

func socketExists(path string) func(context.Context) error {
	return func(context.Context) error {
		_, err := os.Stat(path)
		return err
	}
}
