package pki

import (
	"crypto/x509"
	"testing"
)

func TestGenerateLoopbackServingIssuesACertificateForLoopback(t *testing.T) {
	files, err := Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := GenerateLoopbackServing(files, "image-webhook")
	if err != nil {
		t.Fatal(err)
	}
	leaf := verifiedLeaf(t, caPool(t, files), cert, key, x509.VerifyOptions{DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if leaf.Subject.CommonName != "image-webhook" {
		t.Errorf("common name %q, want image-webhook", leaf.Subject.CommonName)
	}
}
