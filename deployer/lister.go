package deployer

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/kube"
)

// ListerRole is the ClusterRole that lets a deployer list every type of its
// namespace, bound there: what Styrmin reads, as the deployer, before it
// deletes the namespace (kube.Client.NamespaceLeftovers). Kubernetes' admin
// role lists neither PodTemplates, CSIStorageCapacities nor custom resources.
const ListerRole = "styrmin:namespace-lister"

// listerBinding is the name of the RoleBinding of ListerRole in a namespace.
const listerBinding = "styrmin-deployer-lister"

// ensureListerRole puts ListerRole in place and reports whether it is there.
// A Styrmin that may not create it (the chart's worker without
// rbac.grantApproved: the rule it holds is one only grants may make) goes on
// without it: its deployers may not list every type, so the listing before
// a delete counts those types as unchecked and keeps the namespace.
func (c *Client) ensureListerRole(ctx context.Context) (bool, error) {
	rules := []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"list"}}}
	err := c.applyClusterRole(ctx, ListerRole, managed("lister"), rules)
	switch {
	case apierrors.IsForbidden(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// ensureListerBinding lets namespace's deployer list every type there.
func (c *Client) ensureListerBinding(ctx context.Context, namespace string) error {
	return c.applyRoleBinding(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: listerBinding, Namespace: namespace, Labels: managed(kube.RoleDeployer)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ListerRole},
		Subjects:   []rbacv1.Subject{c.subject(namespace)},
	})
}
