package deployer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/kube"
)

// Ensure makes namespace ready for Helm operations as its deployer: the Helm
// records and reviewers policies are in place (once per Client), the
// namespace carries DeploymentsLabel, the deployer's ServiceAccount exists
// in the deployers' namespace, the deployer and the reviewer hold the
// namespace's admin role and the deployer ListerRole there (when Styrmin
// may make it; a binding of an earlier deployer, the user
// styrmin:deployer:NAMESPACE, is bound to the ServiceAccount instead). It
// changes nothing that is already so, and returns once the API server
// refuses the deployer a Helm record there and the reviewer any change. The
// namespace must exist and may not be the deployers' own.
func (c *Client) Ensure(ctx context.Context, namespace string) error {
	if namespace == c.namespace {
		return styrmin.Errorf(styrmin.EINVALID, "Namespace %s holds Styrmin's deployers: nothing is deployed there.", namespace)
	}
	if err := c.ensureRecordsPolicy(ctx); err != nil {
		return err
	}
	if err := c.labelNamespace(ctx, namespace); err != nil {
		return err
	}
	if err := c.ensureAccount(ctx, namespace); err != nil {
		return err
	}
	if err := untilAdmitted(ctx, func() error { return c.ensureBinding(ctx, namespace) }); err != nil {
		return err
	}
	if c.lister {
		if err := untilAdmitted(ctx, func() error { return c.ensureListerBinding(ctx, namespace) }); err != nil {
			return err
		}
	}
	if err := untilAdmitted(ctx, func() error { return c.ensureReviewer(ctx, namespace) }); err != nil {
		return err
	}
	if err := c.awaitRecordsGuarded(ctx, namespace); err != nil {
		return err
	}
	return c.awaitReviewerGuarded(ctx, namespace)
}

// untilAdmitted runs create until no ValidatingAdmissionPolicy refuses it,
// for at most admissionDelay: the chart's policy lets Styrmin's worker make
// identities only in a namespace labelled DeploymentsLabel, and the API
// server's admission may not have seen the label it was just given. Any
// other error, and the policy's refusal after that, is returned.
func untilAdmitted(ctx context.Context, create func() error) error {
	var err error
	_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, admissionDelay, true, func(context.Context) (bool, error) {
		err = create()
		return !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy"), nil
	})
	return err
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
	_, err = c.clientset.CoreV1().Namespaces().Patch(ctx, namespace, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsForbidden(err) {
		return styrmin.Errorf(styrmin.EFORBIDDEN, "Styrmin may not deploy to namespace %s, which it did not create: a cluster admin makes it Styrmin's with `kubectl label namespace %s %s=true` (%v).", namespace, namespace, DeploymentsLabel, err)
	}
	if err != nil {
		return fmt.Errorf("deployer: label namespace %s: %w", namespace, err)
	}
	return nil
}

// ensureAccount makes the ServiceAccount of namespace's deployer, with no
// token mounted in any pod, in the deployers' namespace, creating that
// namespace when it is missing.
func (c *Client) ensureAccount(ctx context.Context, namespace string) error {
	account := &corev1.ServiceAccount{
		ObjectMeta:                   metav1.ObjectMeta{Name: Account(namespace), Namespace: c.namespace, Labels: managed(kube.RoleDeployer, grantNamespaceLabel, namespace)},
		AutomountServiceAccountToken: ptr.To(false),
	}
	accounts := c.clientset.CoreV1().ServiceAccounts(c.namespace)
	_, err := accounts.Create(ctx, account, metav1.CreateOptions{})
	if apierrors.IsNotFound(err) { // the deployers' namespace is not there yet
		if err = c.createNamespace(ctx); err == nil {
			_, err = accounts.Create(ctx, account, metav1.CreateOptions{})
		}
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("deployer: ServiceAccount %s of namespace %s's deployer in namespace %s: %w", account.Name, namespace, c.namespace, err)
	}
	return nil
}

// createNamespace creates the deployers' namespace, where no pod may run
// (Pod Security's restricted level enforced; no pod is ever made there).
func (c *Client) createNamespace(ctx context.Context) error {
	labels := managed("deployers", enforceLabel, LevelRestricted, warnLabel, LevelRestricted)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace, Labels: labels}}
	_, err := c.clientset.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create the deployers' namespace: %w", err)
	}
	return nil
}

// ensureBinding gives namespace's deployer the namespace's admin role.
func (c *Client) ensureBinding(ctx context.Context, namespace string) error {
	want := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: bindingName, Namespace: namespace, Labels: managed(kube.RoleDeployer)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: namespaceRole},
		Subjects:   []rbacv1.Subject{c.subject(namespace)},
	}
	return c.applyRoleBinding(ctx, want)
}

// subject is the RBAC subject of namespace's deployer.
func (c *Client) subject(namespace string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: Account(namespace), Namespace: c.namespace}
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
