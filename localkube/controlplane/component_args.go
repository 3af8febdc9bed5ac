package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/styrmin/styrmin/localkube/pki"
)

func etcdArgs(layout Layout, p ports) []string {
	client := fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	peer := fmt.Sprintf("http://127.0.0.1:%d", p.etcdPeer)
	return []string{
		"--name=default",
		"--data-dir=" + filepath.Join(layout.RunDir(), "etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=default=" + peer,
		"--unsafe-no-fsync=true", // throwaway data: speed over durability
		"--log-level=warn",
	}
}

func apiserverArgs(layout Layout, p ports, files pki.Files) []string {
	return []string{
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", p.etcdClient),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", p.apiserver),
		"--endpoint-reconciler-type=none", // the default reconciler refuses a loopback address
		"--authorization-mode=RBAC",
		"--cert-dir=" + filepath.Join(layout.RunDir(), "pki"),
		"--client-ca-file=" + files.CACert,
		// The controller-manager and scheduler read these from extension-apiserver-authentication.
		"--requestheader-client-ca-file=" + files.CACert,
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--tls-cert-file=" + files.ServingCert,
		"--tls-private-key-file=" + files.ServingKey,
		"--service-account-key-file=" + files.ServiceAccountPublic,
		"--service-account-signing-key-file=" + files.ServiceAccountKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--kubelet-preferred-address-types=InternalIP",
		"--allow-privileged=true",
		"--profiling=false",
	}
}

// controllerArgs are the flags kube-controller-manager and kube-scheduler
// share: the cluster's admin kubeconfig for everything, a secure port on
// loopback with certificates in certDir, no leader election, no profiling.
func controllerArgs(layout Layout, port int, certDir string) []string {
	return []string{
		"--kubeconfig=" + layout.Kubeconfig(),
		"--authentication-kubeconfig=" + layout.Kubeconfig(),
		"--authorization-kubeconfig=" + layout.Kubeconfig(),
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + filepath.Join(layout.RunDir(), "pki", certDir),
		"--leader-elect=false",
		"--profiling=false",
	}
}

func controllerManagerArgs(layout Layout, p ports, files pki.Files) []string {
	return append(controllerArgs(layout, p.controllerManager, "kcm"),
		"--service-account-private-key-file="+files.ServiceAccountKey,
		"--root-ca-file="+files.CACert,
		"--use-service-account-credentials=false",
	)
}

func schedulerArgs(layout Layout, p ports) []string {
	return controllerArgs(layout, p.scheduler, "scheduler")
}

func kwokArgs(layout Layout, p ports, files pki.Files) ([]string, error) {
	config, err := kwokConfig()
	if err != nil {
		return nil, err
	}
	configPath := filepath.Join(layout.RunDir(), "kwok.yaml")
	if err := os.WriteFile(configPath, config, 0o644); err != nil {
		return nil, fmt.Errorf("write kwok config: %w", err)
	}
	return []string{
		"--kubeconfig=" + layout.Kubeconfig(),
		"--config=" + configPath,
		"--manage-single-node=" + NodeName,
		"--cidr=10.244.0.0/16", // kwok's default overlaps the service range
		"--node-ip=127.0.0.1",
		fmt.Sprintf("--node-port=%d", p.kwok),
		fmt.Sprintf("--server-address=127.0.0.1:%d", p.kwok),
		"--tls-cert-file=" + files.ServingCert,
		"--tls-private-key-file=" + files.ServingKey,
	}, nil
}

// setFlags returns args with each --name=value of flags replacing the
// argument of the same name, or appended when args has none.
func setFlags(args, flags []string) []string {
	out := append([]string(nil), args...)
	for _, flag := range flags {
		name, _, _ := strings.Cut(flag, "=")
		replaced := false
		for i, arg := range out {
			if strings.HasPrefix(arg, name+"=") {
				out[i], replaced = flag, true
			}
		}
		if !replaced {
			out = append(out, flag)
		}
	}
	return out
}
