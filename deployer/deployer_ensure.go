package deployer

import (
	"context"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/styrmin/styrmin/kube"
)

// Ensure makes namespace ready for Helm operations as its deployer: the Helm
// records and reviewers policies are in place (once per Client), the
// namespace carries DeploymentsLabel, and the deployer and the reviewer hold
// the namespace's admin role. It changes nothing that is already so, and
// returns once the API server refuses the deployer a Helm record there and
// the reviewer any change. The namespace must exist.
func (c *Client) Ensure(ctx context.Context, namespace string) error {
	if err := c.ensureRecordsPolicy(ctx); err != nil {
		return err
	}
	if err := c.labelNamespace(ctx, namespace); err != nil {
		return err
	}
	if err := c.ensureBinding(ctx, namespace); err != nil {
		return err
	}
	if err := c.ensureReviewer(ctx, namespace); err != nil {
		return err
	}
	if err := c.awaitRecordsGuarded(ctx, namespace); err != nil {
		return err
	}
	return c.awaitReviewerGuarded(ctx, namespace)
}

// labelNamespace adds DeploymentsLabel to namespace when it lacks it.
func (c *Client) labelNamespace(ctx context.Context, namespace string) error {
	ns, err := c.clientset.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("deployer: get namespace %s: %w", namespace, err)
	}
	if ns.Labels[DeploymentsLabel] == "true" {
		return nil
	}
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:"true"}}}`, DeploymentsLabel)
	if _, err := c.clientset.CoreV1().Namespaces().Patch(ctx, namespace, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("deployer: label namespace %s: %w", namespace, err)
	}
	return nil
}

// ensureBinding gives namespace's deployer the namespace's admin role.
func (c *Client) ensureBinding(ctx context.Context, namespace string) error {
	want := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: bindingName, Namespace: namespace, Labels: managed(kube.RoleDeployer)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: namespaceRole},
		Subjects:   []rbacv1.Subject{userSubject(namespace)},
	}
	return c.applyRoleBinding(ctx, want)
}

// userSubject is the RBAC subject of namespace's deployer.
func userSubject(namespace string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: User(namespace)}
}

// applyRoleBinding creates want, or replaces the binding of its name when it
// differs (a RoleBinding's role cannot change: it is deleted and created again).
func (c *Client) applyRoleBinding(ctx context.Context, want *rbacv1.RoleBinding) error {
	bindings := c.clientset.RbacV1().RoleBindings(want.Namespace)
	have, err := bindings.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = bindings.Create(ctx, want, metav1.CreateOptions{})
	case err == nil && have.RoleRef != want.RoleRef:
		if err = bindings.Delete(ctx, want.Name, metav1.DeleteOptions{}); err == nil {
			_, err = bindings.Create(ctx, want, metav1.CreateOptions{})
		}
	case err == nil && !slices.Equal(have.Subjects, want.Subjects):
		have.Subjects, have.Labels = want.Subjects, want.Labels
		_, err = bindings.Update(ctx, have, metav1.UpdateOptions{})
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("deployer: RoleBinding %s in namespace %s: %w", want.Name, want.Namespace, err)
	}
	return nil
}
