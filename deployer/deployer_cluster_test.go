package deployer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/styrmin/styrmin/deployer"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/permissions"
)

// env is a namespace made ready for its deployer on the local cluster.
type env struct {
	ns        string
	styrmin   *kube.Client
	deployers *deployer.Client
	// asDeployer is a client that acts as the namespace's deployer, as Helm does.
	asDeployer kubernetes.Interface
}

// setup creates a namespace as Styrmin creates one for a deployment, makes
// its deployer (in a deployers' namespace of the test's own, which Ensure
// creates), and removes them when the test ends.
func setup(t *testing.T) env {
	t.Helper()
	ctx := context.Background()
	client, deployers := newDeployers(t)
	ns := "deployer-" + rand.String(6)
	_, err := client.EnsureNamespace(ctx, ns, true, deployers.NamespaceLabels())
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, deployers.Revoke(context.Background(), ns, "app"))
		require.NoError(t, client.DeleteNamespace(context.Background(), ns))
	})
	require.NoError(t, deployers.Ensure(ctx, ns))
	return env{ns: ns, styrmin: client, deployers: deployers, asDeployer: actingAs(t, client.Config, deployers.Impersonation(ns))}
}

// newDeployers is Styrmin's client of the local cluster and a deployer
// Client whose deployers' namespace is the test's own, deleted when the
// test ends.
func newDeployers(t *testing.T) (*kube.Client, *deployer.Client) {
	t.Helper()
	client, err := kube.Connect(kubetest.Kubeconfig(t), "")
	require.NoError(t, err)
	namespace := kubetest.UniqueName("deployers")
	deployers, err := deployer.New(client.Config, deployer.Options{Namespace: namespace})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, client.DeleteNamespace(context.Background(), namespace)) })
	return client, deployers
}

// actingAs is a client of config that impersonates as.
func actingAs(t *testing.T, config *rest.Config, as rest.ImpersonationConfig) kubernetes.Interface {
	t.Helper()
	config = rest.CopyConfig(config)
	config.Impersonate = as
	client, err := kubernetes.NewForConfig(config)
	require.NoError(t, err)
	return client
}

// configMap is a ConfigMap name with one key.
func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}
}

// TestADeployerActsOnlyInItsNamespace: what a chart could do through Helm
// with Styrmin's own credentials, its deployer cannot: write or read another
// namespace, bind cluster-admin, relabel its namespace's Pod Security level or
// act as another identity. In its own namespace it creates what charts create.
func TestADeployerActsOnlyInItsNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	as := e.asDeployer

	_, err := as.CoreV1().ConfigMaps(e.ns).Create(ctx, configMap("mine"), metav1.CreateOptions{})
	require.NoError(t, err, "a ConfigMap in its own namespace")
	_, err = as.RbacV1().Roles(e.ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods", "configmaps"}, Verbs: []string{"get", "list"}}},
	}, kubetest.DryRun)
	require.NoError(t, err, "a Role within its namespace")

	_, err = as.CoreV1().ConfigMaps("kube-system").Create(ctx, configMap("planted"), kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a ConfigMap in kube-system")
	_, err = as.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
	kubetest.RequireForbidden(t, err, "reading kube-system's Secrets")
	_, err = as.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
	kubetest.RequireForbidden(t, err, "reading every namespace's Secrets")
	_, err = as.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: e.ns + "-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: e.ns}},
	}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a ClusterRoleBinding to cluster-admin")
	_, err = as.RbacV1().RoleBindings(e.ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: e.ns}},
	}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a RoleBinding to cluster-admin, even in its own namespace")
	_, err = as.CoreV1().Namespaces().Patch(ctx, e.ns, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`), metav1.PatchOptions{})
	kubetest.RequireForbidden(t, err, "relabelling its namespace's Pod Security level")

	// The deployer's ServiceAccount lives in the deployers' namespace, where
	// it holds nothing: it cannot mint its own token, run a pod there or
	// give itself a Role there.
	_, err = as.CoreV1().ServiceAccounts(e.deployers.Namespace()).CreateToken(ctx, deployer.Account(e.ns), &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	kubetest.RequireForbidden(t, err, "a token of the deployer's own ServiceAccount")
	_, err = as.CoreV1().Pods(e.deployers.Namespace()).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "as-deployer"},
		Spec: corev1.PodSpec{ServiceAccountName: deployer.Account(e.ns), Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}}}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a pod running as the deployer")
	_, err = as.RbacV1().RoleBindings(e.deployers.Namespace()).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: deployer.Account(e.ns), Namespace: e.deployers.Namespace()}},
	}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "admin in the deployers' namespace")

	// A Role the chart makes in its namespace cannot let its pods act as the
	// deployer: impersonating its namespace's ServiceAccounts does not reach
	// the deployers' namespace.
	_, err = as.RbacV1().Roles(e.ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "impersonator"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"impersonate"}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = as.RbacV1().RoleBindings(e.ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "impersonator"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "impersonator"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: e.ns}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	review, err := e.styrmin.Clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + e.ns + ":default",
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: "serviceaccounts", Namespace: e.deployers.Namespace(), Name: deployer.Account(e.ns)},
	}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.False(t, review.Status.Allowed, "a chart's pod may impersonate its deployer")
}

// TestOnlyStyrminWritesHelmRecordsWhereItDeploys: a Helm release record
// forged by the deployer (a chart's object) or by a pod of the chart (a
// ServiceAccount it gave the edit role) is refused by the cluster's admission;
// Styrmin's own writes (Helm's storage) pass.
func TestOnlyStyrminWritesHelmRecordsWhereItDeploys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	forged := func(name string, typ corev1.SecretType, labels map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Type: typ, Data: map[string][]byte{"release": []byte("H4sI")}}
	}
	helmLabels := map[string]string{"owner": "helm", "name": "app", "status": "deployed", "version": "9"}

	_, err := e.asDeployer.CoreV1().Secrets(e.ns).Create(ctx, forged("sh.helm.release.v1.app.v9", "helm.sh/release.v1", helmLabels), kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a Helm record written by the deployer")
	require.Contains(t, err.Error(), "Styrmin keeps the Helm release records")
	_, err = e.asDeployer.CoreV1().Secrets(e.ns).Create(ctx, forged("looks-like-helm", corev1.SecretTypeOpaque, helmLabels), kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a Secret labelled owner=helm written by the deployer")

	// A pod of the chart, with a ServiceAccount the chart gave the edit role.
	_, err = e.asDeployer.RbacV1().RoleBindings(e.ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "default-edit"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: e.ns}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	pod := actingAs(t, e.styrmin.Config, rest.ImpersonationConfig{UserName: "system:serviceaccount:" + e.ns + ":default"})
	kubetest.Eventually(t, "the chart's pod may write an ordinary Secret", func() error {
		_, err := pod.CoreV1().Secrets(e.ns).Create(ctx, forged("plain", corev1.SecretTypeOpaque, nil), kubetest.DryRun)
		return err
	})
	_, err = pod.CoreV1().Secrets(e.ns).Create(ctx, forged("sh.helm.release.v1.app.v10", "helm.sh/release.v1", helmLabels), kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a Helm record written by a chart's pod")
	require.Contains(t, err.Error(), "Styrmin keeps the Helm release records")

	_, err = e.styrmin.Clientset.CoreV1().Secrets(e.ns).Create(ctx, forged("sh.helm.release.v1.app.v1", "helm.sh/release.v1", helmLabels), kubetest.DryRun)
	require.NoError(t, err, "Styrmin's own Helm record")
}

// TestPodSecurityRefusesPrivilegedPodsUntilAnAdminApprovesThem: a namespace
// Styrmin creates enforces Pod Security's baseline level, so a chart's pod
// that shares the node's PID namespace is refused; approved for the
// release, the namespace admits it, and once the grant is revoked no more.
func TestPodSecurityRefusesPrivilegedPodsUntilAnAdminApprovesThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	hostPID := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "peek"},
		Spec: corev1.PodSpec{HostPID: true, Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36",
			VolumeMounts: []corev1.VolumeMount{{Name: "root", MountPath: "/host"}}}},
			Volumes: []corev1.Volume{{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}},
	}
	_, err := e.asDeployer.CoreV1().Pods(e.ns).Create(ctx, hostPID, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a pod with the host's PID namespace and root folder")
	require.Contains(t, err.Error(), "violates PodSecurity")

	require.NoError(t, e.deployers.Grant(ctx, e.ns, "app", permissions.Set{PodSecurity: []string{permissions.PodHostPID, permissions.PodHostPath}}))
	_, err = e.asDeployer.CoreV1().Pods(e.ns).Create(ctx, hostPID, kubetest.DryRun)
	require.NoError(t, err, "approved, the pod is admitted")

	require.NoError(t, e.deployers.Revoke(ctx, e.ns, "app"))
	_, err = e.asDeployer.CoreV1().Pods(e.ns).Create(ctx, hostPID, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "the pod once the grant is revoked")
	require.Contains(t, err.Error(), "violates PodSecurity")
}

// TestAGrantHoldsWhatWasApprovedAndNoMore: approved a ClusterRole that lists
// nodes, its binding, and a binding of the built-in view role, the deployer
// may create exactly those; a ClusterRole with more rules, a binding of
// cluster-admin and a Namespace stay refused; revoked, nothing is left.
func TestAGrantHoldsWhatWasApprovedAndNoMore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	rbac := rbacv1.GroupName
	approved := permissions.Set{
		Kinds: []permissions.Kind{{Group: rbac, Kind: "ClusterRole", Scope: permissions.ScopeCluster}, {Group: rbac, Kind: "ClusterRoleBinding", Scope: permissions.ScopeCluster}},
		Rules: []permissions.Rule{{Role: "ClusterRole", Resource: "nodes", Verb: "list"}},
		Bindings: []permissions.Binding{
			{Binding: "ClusterRoleBinding", RoleKind: "ClusterRole", SubjectKind: "ServiceAccount"},
			{Binding: "ClusterRoleBinding", RoleKind: "ClusterRole", RoleName: "view", SubjectKind: "ServiceAccount"},
		},
	}
	role := func(resource string) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: e.ns + "-" + resource},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{resource}, Verbs: []string{"list"}}}}
	}
	binding := func(role string) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: e.ns + "-" + role},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbac, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: e.ns}}}
	}
	roles, bindings := e.asDeployer.RbacV1().ClusterRoles(), e.asDeployer.RbacV1().ClusterRoleBindings()

	_, err := roles.Create(ctx, role("nodes"), kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a ClusterRole before any approval")

	require.NoError(t, e.deployers.Grant(ctx, e.ns, "app", approved))
	_, err = roles.Create(ctx, role("nodes"), metav1.CreateOptions{})
	require.NoError(t, err, "the approved ClusterRole")
	t.Cleanup(func() {
		e.styrmin.Clientset.RbacV1().ClusterRoles().Delete(context.Background(), e.ns+"-nodes", metav1.DeleteOptions{})
	}) //nolint:errcheck // best effort
	_, err = bindings.Create(ctx, binding(e.ns+"-nodes"), kubetest.DryRun)
	require.NoError(t, err, "the binding of the chart's own ClusterRole")
	_, err = bindings.Create(ctx, binding("view"), kubetest.DryRun)
	require.NoError(t, err, "the approved binding of view")

	_, err = roles.Create(ctx, role("secrets"), kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a ClusterRole that lists Secrets")
	_, err = bindings.Create(ctx, binding("cluster-admin"), kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a binding of cluster-admin")
	_, err = e.asDeployer.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns + "-more"}}, kubetest.DryRun)
	kubetest.RequireForbidden(t, err, "a Namespace")

	require.NoError(t, e.deployers.Revoke(ctx, e.ns, "app"))
	kubetest.Eventually(t, "the ClusterRole is refused once the grant is revoked (the API server's RBAC cache follows)", func() error {
		_, err := roles.Create(ctx, role("nodes"), kubetest.DryRun)
		if apierrors.IsForbidden(err) {
			return nil
		}
		return fmt.Errorf("not refused: %v", err)
	})
	granted, err := e.styrmin.Clientset.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: "styrmin.io/namespace=" + e.ns})
	require.NoError(t, err)
	require.Empty(t, granted.Items, "the grant's ClusterRoles are gone")
}
