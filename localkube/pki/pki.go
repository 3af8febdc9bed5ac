// Package pki makes the certificates, keys and kubeconfig of the local cluster:
// a self-made CA, the API server's serving certificate, an admin client
// certificate in group system:masters and the service-account signing key.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Files are the paths of everything Generate writes.
type Files struct {
	CACert, CAKey        string
	ServingCert          string
	ServingKey           string
	AdminCert, AdminKey  string
	ServiceAccountKey    string
	ServiceAccountPublic string
}

// FilesIn returns the file layout under dir.
func FilesIn(dir string) Files {
	p := func(name string) string { return filepath.Join(dir, name) }
	return Files{
		CACert: p("ca.crt"), CAKey: p("ca.key"),
		ServingCert: p("apiserver.crt"), ServingKey: p("apiserver.key"),
		AdminCert: p("admin.crt"), AdminKey: p("admin.key"),
		ServiceAccountKey: p("sa.key"), ServiceAccountPublic: p("sa.pub"),
	}
}

// Generate writes a fresh CA and the certificates signed by it into dir; the
// API server's certificate is also valid for serverIPs.
func Generate(dir string, serverIPs ...net.IP) (Files, error) {
	files := FilesIn(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return files, fmt.Errorf("pki: %w", err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return files, fmt.Errorf("pki: ca key: %w", err)
	}
	caTmpl := template("styrmin-local-ca")
	caTmpl.IsCA = true
	caTmpl.BasicConstraintsValid = true
	caTmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return files, fmt.Errorf("pki: ca certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return files, fmt.Errorf("pki: ca certificate: %w", err)
	}
	if err := writePair(files.CACert, files.CAKey, caDER, caKey); err != nil {
		return files, err
	}

	serving := template("kube-apiserver")
	serving.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	serving.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}
	serving.IPAddresses = append([]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")}, serverIPs...)
	if err := issue(serving, caCert, caKey, files.ServingCert, files.ServingKey); err != nil {
		return files, err
	}

	admin := template("admin")
	admin.Subject.Organization = []string{"system:masters"}
	admin.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if err := issue(admin, caCert, caKey, files.AdminCert, files.AdminKey); err != nil {
		return files, err
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return files, fmt.Errorf("pki: service-account key: %w", err)
	}
	if err := writeKey(files.ServiceAccountKey, saKey); err != nil {
		return files, err
	}
	pub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return files, fmt.Errorf("pki: service-account public key: %w", err)
	}
	if err := writePEM(files.ServiceAccountPublic, "PUBLIC KEY", pub); err != nil {
		return files, err
	}
	return files, nil
}

func template(commonName string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62)) //nolint:errcheck // crypto/rand never fails on Linux
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: commonName},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
}

func issue(tmpl, ca *x509.Certificate, caKey crypto.Signer, certPath, keyPath string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("pki: %s key: %w", tmpl.Subject.CommonName, err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return fmt.Errorf("pki: %s certificate: %w", tmpl.Subject.CommonName, err)
	}
	return writePair(certPath, keyPath, der, key)
}

func writePair(certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) error {
	if err := writePEM(certPath, "CERTIFICATE", der); err != nil {
		return err
	}
	return writeKey(keyPath, key)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("pki: marshal key %s: %w", path, err)
	}
	return writePEM(path, "PRIVATE KEY", der)
}

func writePEM(path, blockType string, der []byte) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	return nil
}
