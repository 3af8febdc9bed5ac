package pki

import (
	"encoding/base64"
	"fmt"
	"os"
)

// WriteKubeconfig writes a kubeconfig for server that authenticates as the admin
// user, with every certificate embedded so the file can be copied anywhere.
func WriteKubeconfig(path, server string, files Files) error {
	return WriteClientKubeconfig(path, server, files.CACert, files.AdminCert, files.AdminKey)
}

// WriteClientKubeconfig writes a kubeconfig for server that trusts caCert and
// authenticates with the client certificate cert and its key, all embedded.
func WriteClientKubeconfig(path, server, caCert, cert, key string) error {
	read := func(p string) (string, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("pki: kubeconfig: %w", err)
		}
		return base64.StdEncoding.EncodeToString(b), nil
	}
	caData, err := read(caCert)
	if err != nil {
		return err
	}
	certData, err := read(cert)
	if err != nil {
		return err
	}
	keyData, err := read(key)
	if err != nil {
		return err
	}
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: styrmin-local
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: styrmin-local
  context:
    cluster: styrmin-local
    user: admin
    namespace: default
current-context: styrmin-local
`, server, caData, certData, keyData)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return fmt.Errorf("pki: kubeconfig: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("pki: kubeconfig: %w", err)
	}
	return nil
}
