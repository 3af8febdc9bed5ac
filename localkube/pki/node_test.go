package pki

import (
	"crypto/x509"
	"net"
	"testing"
)

func TestGenerateNodeIssuesTheKubeletsAndAPIServersCertificates(t *testing.T) {
	files, err := Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	node, err := GenerateNode(files, "styrmin-node", net.ParseIP("10.123.4.1"))
	if err != nil {
		t.Fatal(err)
	}
	roots := caPool(t, files)
	client := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	tests := []struct {
		name, cert, key, wantCN, wantOrg string
		verify                           x509.VerifyOptions
	}{
		{"kubelet client", node.KubeletCert, node.KubeletKey, "system:node:styrmin-node", "system:nodes", x509.VerifyOptions{KeyUsages: client}},
		{"kubelet serving", node.KubeletServingCert, node.KubeletServingKey, "styrmin-node", "", x509.VerifyOptions{DNSName: "10.123.4.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}},
		{"apiserver to kubelet", node.APIServerKubeletCert, node.APIServerKubeletKey, "kube-apiserver-kubelet-client", "system:masters", x509.VerifyOptions{KeyUsages: client}},
		{"kube-proxy", node.KubeProxyCert, node.KubeProxyKey, KubeProxyUser, "", x509.VerifyOptions{KeyUsages: client}},
		{"cluster DNS", node.DNSCert, node.DNSKey, DNSUser, "", x509.VerifyOptions{KeyUsages: client}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leaf := verifiedLeaf(t, roots, tt.cert, tt.key, tt.verify)
			if leaf.Subject.CommonName != tt.wantCN {
				t.Fatalf("common name %q, want %q", leaf.Subject.CommonName, tt.wantCN)
			}
			if tt.wantOrg != "" && (len(leaf.Subject.Organization) != 1 || leaf.Subject.Organization[0] != tt.wantOrg) {
				t.Fatalf("organization %v, want %s", leaf.Subject.Organization, tt.wantOrg)
			}
		})
	}
}
