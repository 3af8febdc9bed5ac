package controlplane

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"

	"github.com/styrmin/styrmin/localkube/pki"
)

// kubeProxyHealthzPort is kube-proxy's health port on the node IP. The node's
// network namespace is the cluster's own, so a fixed port collides with no
// other cluster.
const kubeProxyHealthzPort = 10256

// startKubeProxy runs kube-proxy in the node's namespace (iptables mode: its
// rules live in that namespace only) as user system:kube-proxy, and waits
// until its first sync of the Services is done.
func (r realNode) startKubeProxy(layout Layout, server string, files pki.Files, start startFunc) error {
	kubeconfig := layout.nodePath("kube-proxy.kubeconfig")
	if err := pki.WriteClientKubeconfig(kubeconfig, server, files.CACert, r.files.KubeProxyCert, r.files.KubeProxyKey); err != nil {
		return err
	}
	config, err := writeKubeProxyConfig(layout, r.net, kubeconfig)
	if err != nil {
		return err
	}
	healthz := "http://" + net.JoinHostPort(r.net.Gateway.String(), strconv.Itoa(kubeProxyHealthzPort)) + "/healthz"
	_, err = start(r.net.Namespace, "kube-proxy", []string{"--config=" + config}, httpOK(healthz))
	return err
}

// writeKubeProxyConfig writes kube-proxy's KubeProxyConfiguration and returns
// its path. Conntrack sysctls are left alone (they are the host's, not the
// namespace's), and so is kube-proxy's oom_score_adj (root here may not lower it).
func writeKubeProxyConfig(layout Layout, n nodeNetwork, kubeconfig string) (string, error) {
	config := map[string]any{
		"apiVersion":         "kubeproxy.config.k8s.io/v1alpha1",
		"kind":               "KubeProxyConfiguration",
		"clientConnection":   map[string]any{"kubeconfig": kubeconfig},
		"hostnameOverride":   RealNodeName,
		"mode":               "iptables",
		"clusterCIDR":        n.Subnet.String(),
		"healthzBindAddress": net.JoinHostPort(n.Gateway.String(), strconv.Itoa(kubeProxyHealthzPort)),
		"metricsBindAddress": "127.0.0.1:10249",
		"oomScoreAdj":        0,
		"conntrack": map[string]any{
			"maxPerCore":            0,
			"min":                   0,
			"tcpEstablishedTimeout": "0s",
			"tcpCloseWaitTimeout":   "0s",
		},
	}
	data, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return "", fmt.Errorf("real node: kube-proxy config: %w", err)
	}
	path := layout.nodePath("kube-proxy.json")
	return path, writeFile(path, data)
}
