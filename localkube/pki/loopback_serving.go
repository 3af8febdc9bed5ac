package pki

import (
	"crypto/x509"
	"net"
	"path/filepath"
)

// GenerateLoopbackServing writes a serving certificate for 127.0.0.1, with
// the common name name, signed by the CA of files, into their folder as
// name.crt and name.key, and returns their paths. Servers of the localkube
// process that the API server calls (the admission webhook) use it.
func GenerateLoopbackServing(files Files, name string) (certPath, keyPath string, err error) {
	dir := filepath.Dir(files.CACert)
	certPath, keyPath = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	ca, caKey, err := loadCA(files)
	if err != nil {
		return "", "", err
	}
	serving := template(name)
	serving.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	serving.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	return certPath, keyPath, issue(serving, ca, caKey, certPath, keyPath)
}
