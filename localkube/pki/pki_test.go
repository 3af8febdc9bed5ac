package pki

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenerateMakesAChainTheAPIServerAndAdminCanUse(t *testing.T) {
	files, err := Generate(t.TempDir(), net.ParseIP("10.122.7.1"), net.ParseIP("10.124.7.1"))
	if err != nil {
		t.Fatal(err)
	}
	roots := caPool(t, files)
	tests := []struct {
		name      string
		cert, key string
		verify    x509.VerifyOptions
		wantOrg   string
	}{
		{"serving", files.ServingCert, files.ServingKey, x509.VerifyOptions{DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ""},
		{"serving on the real node's link", files.ServingCert, files.ServingKey, x509.VerifyOptions{DNSName: "10.122.7.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ""},
		{"serving by service IP", files.ServingCert, files.ServingKey, x509.VerifyOptions{DNSName: "10.124.7.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ""},
		{"serving by service name", files.ServingCert, files.ServingKey, x509.VerifyOptions{DNSName: "kubernetes.default.svc", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ""},
		{"admin", files.AdminCert, files.AdminKey, x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, "system:masters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leaf := verifiedLeaf(t, roots, tt.cert, tt.key, tt.verify)
			if tt.wantOrg != "" && (len(leaf.Subject.Organization) != 1 || leaf.Subject.Organization[0] != tt.wantOrg) {
				t.Fatalf("organization %v, want %s", leaf.Subject.Organization, tt.wantOrg)
			}
		})
	}
}

func TestWriteKubeconfigEmbedsEverything(t *testing.T) {
	dir := t.TempDir()
	files, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := WriteKubeconfig(path, "https://127.0.0.1:6443", files); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"server: https://127.0.0.1:6443", "certificate-authority-data: LS0t", "client-certificate-data: LS0t", "client-key-data: LS0t", "current-context: styrmin-local"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("kubeconfig lacks %q:\n%s", want, data)
		}
	}
}

// caPool is the pool of the CA that Generate wrote into files.
func caPool(t *testing.T, files Files) *x509.CertPool {
	t.Helper()
	caPEM, err := os.ReadFile(files.CACert)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.crt holds no certificate")
	}
	return roots
}

// verifiedLeaf loads the key pair cert and key and returns its certificate,
// failing the test unless it verifies against roots with opts.
func verifiedLeaf(t *testing.T, roots *x509.CertPool, cert, key string, opts x509.VerifyOptions) *x509.Certificate {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	opts.Roots = roots
	if _, err := leaf.Verify(opts); err != nil {
		t.Fatal(err)
	}
	return leaf
}
