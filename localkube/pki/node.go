package pki

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// NodeFiles are the certificates of the real node (a kubelet), signed by the
// cluster's CA: the kubelet's client certificate (user system:node:NAME in
// group system:nodes, for the Node authorizer), its serving certificate for
// the node IP, the API server's client certificate for the kubelet's API,
// kube-proxy's (user KubeProxyUser) and cluster DNS's (user DNSUser).
type NodeFiles struct {
	KubeletCert, KubeletKey                   string
	KubeletServingCert, KubeletServingKey     string
	APIServerKubeletCert, APIServerKubeletKey string
	KubeProxyCert, KubeProxyKey               string
	DNSCert, DNSKey                           string
}

// KubeProxyUser is kube-proxy's user, which the default RBAC binding
// system:node-proxier lets read Services and EndpointSlices.
const KubeProxyUser = "system:kube-proxy"

// DNSUser is cluster DNS's user; the control plane binds it to a role that
// reads Services, EndpointSlices and Namespaces.
const DNSUser = "styrmin:cluster-dns"

// NodeFilesIn returns the node's file layout under dir (the folder Generate wrote).
func NodeFilesIn(dir string) NodeFiles {
	p := func(name string) string { return filepath.Join(dir, name) }
	return NodeFiles{
		KubeletCert: p("kubelet-client.crt"), KubeletKey: p("kubelet-client.key"),
		KubeletServingCert: p("kubelet.crt"), KubeletServingKey: p("kubelet.key"),
		APIServerKubeletCert: p("apiserver-kubelet-client.crt"), APIServerKubeletKey: p("apiserver-kubelet-client.key"),
		KubeProxyCert: p("kube-proxy.crt"), KubeProxyKey: p("kube-proxy.key"),
		DNSCert: p("cluster-dns.crt"), DNSKey: p("cluster-dns.key"),
	}
}

// GenerateNode writes the certificates of the node nodeName at nodeIP into the
// folder of files (which Generate made), signed by its CA.
func GenerateNode(files Files, nodeName string, nodeIP net.IP) (NodeFiles, error) {
	out := NodeFilesIn(filepath.Dir(files.CACert))
	ca, caKey, err := loadCA(files)
	if err != nil {
		return out, err
	}
	client := template("system:node:" + nodeName)
	client.Subject.Organization = []string{"system:nodes"}
	client.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if err := issue(client, ca, caKey, out.KubeletCert, out.KubeletKey); err != nil {
		return out, err
	}
	serving := template(nodeName)
	serving.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	serving.DNSNames = []string{nodeName}
	serving.IPAddresses = []net.IP{nodeIP}
	if err := issue(serving, ca, caKey, out.KubeletServingCert, out.KubeletServingKey); err != nil {
		return out, err
	}
	apiserver := template("kube-apiserver-kubelet-client")
	apiserver.Subject.Organization = []string{"system:masters"}
	apiserver.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if err := issue(apiserver, ca, caKey, out.APIServerKubeletCert, out.APIServerKubeletKey); err != nil {
		return out, err
	}
	if err := issue(clientTemplate(KubeProxyUser), ca, caKey, out.KubeProxyCert, out.KubeProxyKey); err != nil {
		return out, err
	}
	if err := issue(clientTemplate(DNSUser), ca, caKey, out.DNSCert, out.DNSKey); err != nil {
		return out, err
	}
	return out, nil
}

// clientTemplate is a client certificate of the user name, in no group.
func clientTemplate(name string) *x509.Certificate {
	client := template(name)
	client.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return client
}

func loadCA(files Files) (*x509.Certificate, crypto.Signer, error) {
	block, err := readPEM(files.CACert)
	if err != nil {
		return nil, nil, err
	}
	ca, err := x509.ParseCertificate(block)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: %s: %w", files.CACert, err)
	}
	block, err = readPEM(files.CAKey)
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.ParsePKCS8PrivateKey(block)
	if err != nil {
		return nil, nil, fmt.Errorf("pki: %s: %w", files.CAKey, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("pki: %s holds no signing key", files.CAKey)
	}
	return ca, signer, nil
}

func readPEM(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("pki: %s holds no PEM block", path)
	}
	return block.Bytes, nil
}
