package controlplane

import (
	"context"
	"os"
	"path/filepath"

	"github.com/styrmin/styrmin/localkube/ociimage"
	"github.com/styrmin/styrmin/localkube/pki"
)

// startFunc starts a component from bin/ and waits until ready succeeds.
type startFunc func(name string, args []string, ready func(context.Context) error) (*process, error)

// realNode is the kubelet node beside kwok's: its network and certificates.
type realNode struct {
	net   nodeNetwork
	files pki.NodeFiles
}

// prepareRealNode picks the node's network, creates its bridge and issues
// its certificates; the API server needs them before it starts.
func prepareRealNode(layout Layout, files pki.Files) (realNode, error) {
	n, err := planNodeNetwork(layout.Dir)
	if err != nil {
		return realNode{}, err
	}
	if err := n.create(); err != nil {
		return realNode{}, err
	}
	node, err := pki.GenerateNode(files, RealNodeName, n.Gateway)
	if err != nil {
		return realNode{}, err
	}
	return realNode{net: n, files: node}, nil
}

// apiserverNodeArgs let the API server authorize the kubelet as a node and
// reach the kubelet's API with a client certificate, checking its serving one.
func (r realNode) apiserverNodeArgs(files pki.Files) []string {
	return []string{
		"--authorization-mode=Node,RBAC",
		"--kubelet-client-certificate=" + r.files.APIServerKubeletCert,
		"--kubelet-client-key=" + r.files.APIServerKubeletKey,
		"--kubelet-certificate-authority=" + files.CACert,
	}
}

// start runs containerd (with the pause image imported) and the kubelet, and
// waits until the kubelet's node is Ready. Stopping containerd first removes
// every pod through its CRI API.
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
	containerd, err := start("containerd", []string{"--config", containerdConfig}, socketExists(layout.ContainerdSocket()))
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
	_, err = start("kubelet", kubeletArgs(layout, r.net, kubeletConfig, kubeconfig), client.nodeReady(RealNodeName))
	return err
}

func socketExists(path string) func(context.Context) error {
	return func(context.Context) error {
		_, err := os.Stat(path)
		return err
	}
}
