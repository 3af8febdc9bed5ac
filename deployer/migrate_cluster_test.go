package deployer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/permissions"
)

// TestADeployerThatWasAUserIsBoundAsItsServiceAccount: a namespace whose
// deployer an earlier Styrmin bound as the user styrmin:deployer:NS (its
// admin RoleBinding and a cluster-wide grant) is bound to the deployer's
// ServiceAccount instead on the next Ensure and Grant: the old user holds
// nothing any more, the ServiceAccount what it held. The deployers' own
// namespace is never deployed to.
func TestADeployerThatWasAUserIsBoundAsItsServiceAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, deployers := newDeployers(t)
	ns := kubetest.UniqueName("deployer-old")
	_, err := client.EnsureNamespace(ctx, ns, true, deployers.NamespaceLabels())
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, deployers.Revoke(context.Background(), ns, "app"))
		require.NoError(t, client.DeleteNamespace(context.Background(), ns))
	})
	rbac := client.Clientset.RbacV1()
	oldUser := "styrmin:deployer:" + ns
	old := []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: oldUser}}
	_, err = rbac.RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "styrmin-deployer", Labels: map[string]string{kube.ManagedByLabel: kube.ManagedBy, kube.RoleLabel: kube.RoleDeployer}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
		Subjects:   old,
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	grant := "styrmin:grant:" + ns + ":app"
	_, err = rbac.ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: grant},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: grant},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: grant}, Subjects: old}, metav1.CreateOptions{})
	require.NoError(t, err)
	configMaps := authorizationv1.ResourceAttributes{Namespace: ns, Verb: "create", Resource: "configmaps"}
	nodes := authorizationv1.ResourceAttributes{Verb: "list", Resource: "nodes"}
	kubetest.Eventually(t, "the old deployer holds its namespace and its grant", func() error {
		return allowed(ctx, client, oldUser, true, configMaps, nodes)
	})

	require.NoError(t, deployers.Ensure(ctx, ns))
	require.NoError(t, deployers.Grant(ctx, ns, "app", permissions.Set{Rules: []permissions.Rule{{Role: "ClusterRole", Resource: "nodes", Verb: "list"}}}))

	account := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "deployer-" + ns, Namespace: deployers.Namespace()}}
	binding, err := rbac.RoleBindings(ns).Get(ctx, "styrmin-deployer", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, account, binding.Subjects)
	clusterBinding, err := rbac.ClusterRoleBindings().Get(ctx, grant, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, account, clusterBinding.Subjects)
	require.Equal(t, "system:serviceaccount:"+deployers.Namespace()+":deployer-"+ns, deployers.User(ns))
	require.NoError(t, allowed(ctx, client, deployers.User(ns), true, configMaps, nodes), "the ServiceAccount holds what the user held")
	kubetest.Eventually(t, "the old deployer holds nothing", func() error {
		return allowed(ctx, client, oldUser, false, configMaps, nodes)
	})
	_, err = actingAs(t, client.Config, deployers.Impersonation(ns)).CoreV1().ConfigMaps(ns).Create(ctx, configMap("mine"), kubetest.DryRun)
	require.NoError(t, err, "the deployer acts in its namespace")

	err = deployers.Ensure(ctx, deployers.Namespace())
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "the deployers' namespace is deployed to: %v", err)
	_, err = client.Clientset.CoreV1().ServiceAccounts(deployers.Namespace()).Get(ctx, "deployer-"+deployers.Namespace(), metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "a deployer of the deployers' namespace: %v", err)
}

// allowed returns nil when the API server's authorizer says user may (or,
// with want false, may not) do each of attrs.
func allowed(ctx context.Context, client *kube.Client, user string, want bool, attrs ...authorizationv1.ResourceAttributes) error {
	for _, a := range attrs {
		review, err := client.Clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &a}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if review.Status.Allowed != want {
			return fmt.Errorf("%s may %s %s in %q: %v, want %v", user, a.Verb, a.Resource, a.Namespace, review.Status.Allowed, want)
		}
	}
	return nil
}
