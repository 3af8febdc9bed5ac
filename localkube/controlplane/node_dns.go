package controlplane

import (
	"context"
	"fmt"
	"net"
	"strconv"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/localkube/pki"
)

// ClusterDomain is the cluster's DNS domain: a Service answers as
// <service>.<namespace>.svc.cluster.local.
const ClusterDomain = "cluster.local"

// dnsReadyPort is the port of CoreDNS's ready plugin on the node IP (in the
// node's own namespace, so it collides with no other cluster).
const dnsReadyPort = 8181

// startDNS runs cluster DNS (CoreDNS, cmd/coredns) as a process in the node's
// namespace, on the node IP port 53, which the kubelet gives pods as their
// nameserver. It answers ClusterDomain only and forwards nothing.
func (r realNode) startDNS(ctx context.Context, layout Layout, server string, files pki.Files, client *adminClient, start startFunc) error {
	if err := client.allowDNS(ctx); err != nil {
		return err
	}
	kubeconfig := layout.nodePath("cluster-dns.kubeconfig")
	if err := pki.WriteClientKubeconfig(kubeconfig, server, files.CACert, r.files.DNSCert, r.files.DNSKey); err != nil {
		return err
	}
	corefile := layout.nodePath("Corefile")
	if err := writeFile(corefile, []byte(corefileFor(r.net, kubeconfig))); err != nil {
		return err
	}
	ready := "http://" + net.JoinHostPort(r.net.Gateway.String(), strconv.Itoa(dnsReadyPort)) + "/ready"
	_, err := start(r.net.Namespace, "coredns", []string{"-conf", corefile}, httpOK(ready))
	return err
}

// corefileFor is CoreDNS's configuration: one server for ClusterDomain on the
// node IP. A name outside it has no server, so CoreDNS answers REFUSED.
func corefileFor(n nodeNetwork, kubeconfig string) string {
	return fmt.Sprintf(`%[1]s:53 {
    bind %[2]s
    ready %[3]s
    errors
    cache 30
    loadbalance
    kubernetes %[1]s {
        kubeconfig %[4]q styrmin-local
    }
}
`, ClusterDomain, n.Gateway, net.JoinHostPort(n.Gateway.String(), strconv.Itoa(dnsReadyPort)), kubeconfig)
}

// allowDNS lets pki.DNSUser read what CoreDNS's kubernetes plugin watches.
func (c *adminClient) allowDNS(ctx context.Context) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: pki.DNSUser},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		},
	}
	if _, err := c.core.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("cluster DNS: create its role: %w", err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: pki.DNSUser},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: pki.DNSUser},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: pki.DNSUser}},
	}
	if _, err := c.core.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("cluster DNS: bind its role: %w", err)
	}
	return nil
}
