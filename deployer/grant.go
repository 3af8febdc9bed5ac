package deployer

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/styrmin/styrmin/permissions"
)

// Labels of a grant, naming the deployment it is for.
const (
	grantNamespaceLabel = "styrmin.io/namespace"
	grantReleaseLabel   = "styrmin.io/release"
)

// writeVerbs are what an approved kind lets the deployer do with its objects:
// all Helm needs to create, upgrade and uninstall them.
var writeVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// Grant gives namespace's deployer, for release, what an admin approved: the
// approved cluster-scoped kinds, the rules of the chart's ClusterRoles and of
// its Roles in the namespace (a deployer must hold a rule to grant it), the
// binding of named roles, and privileged pods. Approving covers only the
// release's namespace: an approved object in another namespace is still
// refused there by Kubernetes. The grant replaces release's earlier one; an
// empty one removes it (see Revoke). Call it before every Helm operation of
// release, with what the operation's driver versions approve together.
func (c *Client) Grant(ctx context.Context, namespace, release string, approved permissions.Set) error {
	cluster, namespaced, err := c.rules(approved)
	if err != nil {
		return err
	}
	names := grantNames(namespace, release)
	if err := c.applyClusterGrant(ctx, names, namespace, release, cluster); err != nil {
		return err
	}
	if err := c.applyNamespacedGrant(ctx, names, namespace, release, namespaced); err != nil {
		return err
	}
	if err := c.awaitAllowed(ctx, namespace, cluster, namespaced); err != nil {
		return err
	}
	return c.allowPrivileged(ctx, namespace, release, approved.Privileged())
}

// awaitAllowed returns once the API server's authorizer, which reads RBAC
// from caches that follow changes, lets namespace's deployer do each rule's
// first verb: cluster rules anywhere, namespaced ones in namespace.
func (c *Client) awaitAllowed(ctx context.Context, namespace string, cluster, namespaced []rbacv1.PolicyRule) error {
	var reviews []authorizationv1.SubjectAccessReviewSpec
	for _, r := range cluster {
		reviews = append(reviews, reviewOf(c.User(namespace), "", r))
	}
	for _, r := range namespaced {
		reviews = append(reviews, reviewOf(c.User(namespace), namespace, r))
	}
	for _, spec := range reviews {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, admissionDelay, true, func(ctx context.Context) (bool, error) {
			review, err := c.clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			return review.Status.Allowed, nil
		})
		if err != nil {
			return fmt.Errorf("deployer: the grant of namespace %s's deployer is not in force: %w", namespace, err)
		}
	}
	return nil
}

// reviewOf asks whether user (a deployer, whose rights are bound to its name)
// may do rule's first verb on its first resource (in ns, or cluster-wide
// when ns is "").
func reviewOf(user, ns string, rule rbacv1.PolicyRule) authorizationv1.SubjectAccessReviewSpec {
	spec := authorizationv1.SubjectAccessReviewSpec{User: user}
	if len(rule.NonResourceURLs) > 0 {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: rule.NonResourceURLs[0], Verb: rule.Verbs[0]}
		return spec
	}
	attrs := &authorizationv1.ResourceAttributes{Namespace: ns, Verb: rule.Verbs[0], Group: rule.APIGroups[0], Resource: rule.Resources[0]}
	if len(rule.ResourceNames) > 0 {
		attrs.Name = rule.ResourceNames[0]
	}
	spec.ResourceAttributes = attrs
	return spec
}

// Revoke removes what Grant gave namespace's deployer for release.
func (c *Client) Revoke(ctx context.Context, namespace, release string) error {
	return c.Grant(ctx, namespace, release, permissions.Set{})
}

// names are the names of a release's grant objects.
type names struct {
	// cluster names the ClusterRole and ClusterRoleBinding of cluster-wide rules.
	cluster string
	// namespaced names the ClusterRole of the rules bound in the namespace.
	namespaced string
	// binding names the RoleBinding of those rules in the namespace.
	binding string
}

// grantNames are the names of release's grant in namespace.
func grantNames(namespace, release string) names {
	cluster := "styrmin:grant:" + namespace + ":" + release
	return names{cluster: cluster, namespaced: cluster + ":namespaced", binding: "styrmin-grant-" + release}
}

// rules turns approved items into the RBAC rules the deployer needs to apply
// them: cluster-wide ones, and ones within its namespace.
func (c *Client) rules(approved permissions.Set) (cluster, namespaced []rbacv1.PolicyRule, err error) {
	for _, k := range approved.Kinds {
		resource, isNamespaced, err := c.resourceOf(k.Group, k.Kind)
		if err != nil {
			return nil, nil, err
		}
		rule := rbacv1.PolicyRule{APIGroups: []string{k.Group}, Resources: []string{resource}, Verbs: writeVerbs}
		if isNamespaced {
			namespaced = append(namespaced, rule)
		} else {
			cluster = append(cluster, rule)
		}
	}
	for _, r := range approved.Rules {
		rule := rbacv1.PolicyRule{Verbs: []string{r.Verb}}
		if r.Resource != "" && r.Resource[0] == '/' {
			rule.NonResourceURLs = []string{r.Resource}
		} else {
			rule.APIGroups, rule.Resources = []string{r.APIGroup}, []string{r.Resource}
		}
		switch {
		case r.Role == "ClusterRole":
			cluster = append(cluster, rule)
		case r.Namespace == "" && rule.NonResourceURLs == nil:
			namespaced = append(namespaced, rule)
		}
	}
	if len(approved.Aggregations) > 0 {
		// An aggregating ClusterRole's rules are not known when it is made.
		cluster = append(cluster, rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, Verbs: []string{"escalate"}})
	}
	for _, b := range approved.Bindings {
		if b.RoleName == "" {
			continue // the chart's own role: the deployer holds its approved rules
		}
		resource := "roles"
		if b.RoleKind == "ClusterRole" {
			resource = "clusterroles"
		}
		rule := rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{resource}, Verbs: []string{"bind"}, ResourceNames: []string{b.RoleName}}
		switch {
		case b.Binding == "ClusterRoleBinding":
			cluster = append(cluster, rule)
		case b.Namespace == "":
			namespaced = append(namespaced, rule)
		}
	}
	return cluster, namespaced, nil
}

// resourceOf is the resource of kind in group, and whether it is namespaced,
// as the cluster's discovery says; a kind the cluster does not know yet (a
// custom resource whose definition the chart brings) gets Kubernetes' usual
// plural and counts as cluster-scoped, as Styrmin's reading counts it.
func (c *Client) resourceOf(group, kind string) (string, bool, error) {
	gk := schema.GroupKind{Group: group, Kind: kind}
	mapping, err := c.mapper.RESTMapping(gk)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset() // a definition may have arrived since discovery was read
		mapping, err = c.mapper.RESTMapping(gk)
	}
	switch {
	case meta.IsNoMatchError(err):
		plural, _ := meta.UnsafeGuessKindToResource(gk.WithVersion(""))
		return plural.Resource, false, nil
	case err != nil:
		return "", false, fmt.Errorf("deployer: resource of %s: %w", gk, err)
	}
	return mapping.Resource.Resource, mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// applyClusterGrant makes the ClusterRole of rules and binds it to
// namespace's deployer, or removes both when there are no rules.
func (c *Client) applyClusterGrant(ctx context.Context, n names, namespace, release string, rules []rbacv1.PolicyRule) error {
	labels := managed(RoleGrant, grantNamespaceLabel, namespace, grantReleaseLabel, release)
	if len(rules) == 0 {
		if err := c.deleteClusterRoleBinding(ctx, n.cluster); err != nil {
			return err
		}
		return c.deleteClusterRole(ctx, n.cluster)
	}
	if err := c.applyClusterRole(ctx, n.cluster, labels, rules); err != nil {
		return err
	}
	want := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: n.cluster, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: n.cluster},
		Subjects:   []rbacv1.Subject{c.subject(namespace)},
	}
	// An earlier grant may name the deployer that was a user: its subject is replaced.
	err := apply(ctx, c.clientset.RbacV1().ClusterRoleBindings(), want, func(have *rbacv1.ClusterRoleBinding) {
		have.Subjects, have.Labels = want.Subjects, want.Labels
	})
	if err != nil {
		return fmt.Errorf("deployer: ClusterRoleBinding %s: %w", n.cluster, err)
	}
	return nil
}

// applyNamespacedGrant makes the ClusterRole of rules and binds it to
// namespace's deployer within namespace, or removes both when there are none.
func (c *Client) applyNamespacedGrant(ctx context.Context, n names, namespace, release string, rules []rbacv1.PolicyRule) error {
	labels := managed(RoleGrant, grantNamespaceLabel, namespace, grantReleaseLabel, release)
	if len(rules) == 0 {
		err := c.clientset.RbacV1().RoleBindings(namespace).Delete(ctx, n.binding, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deployer: delete RoleBinding %s in namespace %s: %w", n.binding, namespace, err)
		}
		return c.deleteClusterRole(ctx, n.namespaced)
	}
	if err := c.applyClusterRole(ctx, n.namespaced, labels, rules); err != nil {
		return err
	}
	return c.applyRoleBinding(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: n.binding, Namespace: namespace, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: n.namespaced},
		Subjects:   []rbacv1.Subject{c.subject(namespace)},
	})
}

// applyClusterRole creates the ClusterRole name with rules, or sets its rules.
func (c *Client) applyClusterRole(ctx context.Context, name string, labels map[string]string, rules []rbacv1.PolicyRule) error {
	want := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
	err := apply(ctx, c.clientset.RbacV1().ClusterRoles(), want, func(have *rbacv1.ClusterRole) {
		have.Rules, have.Labels = rules, labels
	})
	if err != nil {
		return fmt.Errorf("deployer: ClusterRole %s: %w", name, err)
	}
	return nil
}

// deleteClusterRole deletes the ClusterRole name, if it exists. A Styrmin
// that may not delete grants could not have made one: refused is gone.
func (c *Client) deleteClusterRole(ctx context.Context, name string) error {
	err := c.clientset.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		return fmt.Errorf("deployer: delete ClusterRole %s: %w", name, err)
	}
	return nil
}

// deleteClusterRoleBinding deletes the ClusterRoleBinding name, if it
// exists (refused counts as gone, as for deleteClusterRole).
func (c *Client) deleteClusterRoleBinding(ctx context.Context, name string) error {
	err := c.clientset.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		return fmt.Errorf("deployer: delete ClusterRoleBinding %s: %w", name, err)
	}
	return nil
}
