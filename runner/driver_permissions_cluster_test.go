package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
)

// nodeReaderBundle is a local driver "node-reader" whose chart creates a
// ConfigMap, a ClusterRole that lists nodes and a ClusterRoleBinding of it
// to the release's default ServiceAccount.
var nodeReaderBundle = deploymenttest.ChartDriver("node-reader", "1.0.0", "A driver whose chart lets its ServiceAccount list the cluster's nodes.", `apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ .Release.Name }}-config"}
data: {hello: world}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "{{ .Release.Name }}-nodes"}
rules: [{apiGroups: [""], resources: [nodes], verbs: [list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "{{ .Release.Name }}-nodes"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "{{ .Release.Name }}-nodes"}
subjects:
- {kind: ServiceAccount, name: default, namespace: "{{ .Release.Namespace }}"}
`)

// TestAClusterRoleBindingIsRefusedOnTheClusterUntilAnAdminApprovesIt: on
// the local cluster, a driver whose chart creates a ClusterRole and a
// ClusterRoleBinding is refused, by the install's queueing and by Helm's
// check itself, and nothing is created (not even its ConfigMap); once an
// admin approves the version, it installs and the objects exist.
func TestAClusterRoleBindingIsRefusedOnTheClusterUntilAnAdminApprovesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.SetupCluster(t)
	_, err := f.Catalog.ImportFS(ctx, nodeReaderBundle, "node-reader", "root")
	require.NoError(t, err)
	name := kubetest.UniqueName("perm")
	f.CleanUp(t, name)
	install := &deployment.Install{Driver: "node-reader", DriverVersion: "1.0.0", Name: name, AppVersion: "1.0.0", By: "alice"}
	kube := clusterAdmin(t) // the worker's client acts as the deployer, which a refused install never got
	requireNothing := func() {
		t.Helper()
		_, err := kube.RbacV1().ClusterRoles().Get(ctx, name+"-nodes", metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "the ClusterRole exists: %v", err)
		_, err = kube.RbacV1().ClusterRoleBindings().Get(ctx, name+"-nodes", metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "the ClusterRoleBinding exists: %v", err)
		_, err = kube.CoreV1().ConfigMaps(name).Get(ctx, name+"-config", metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "the ConfigMap exists: %v", err)
		records, err := kube.CoreV1().Secrets(name).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=" + name})
		require.NoError(t, err)
		require.Empty(t, records.Items, "Helm recorded a release")
	}

	_, err = f.Svc.Queue(ctx, install)
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "%v", err)
	require.Contains(t, styrmin.ErrorMessage(err), "binds ClusterRoleBinding of the chart's ClusterRole to ServiceAccount default")
	_, err = f.Svc.Get(ctx, name)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "nothing was queued")
	requireNothing()

	// Helm's own guard, which the install task passes, refuses on the cluster too.
	_, err = kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) }) //nolint:errcheck // gone already, or left to the cluster's end
	b, err := f.Catalog.Bundle(ctx, "node-reader", "1.0.0")
	require.NoError(t, err)
	check, err := f.Svc.PermissionCheck(ctx, "node-reader", "1.0.0", name)
	require.NoError(t, err)
	_, err = f.Cluster.Releases.Install(ctx, release.InstallOptions{Namespace: name, Name: name, Chart: b.Chart, Check: check,
		Owner: release.Owner{Installation: "test", Deployment: 1}})
	// The cluster refuses it at Helm's first read of its records, as a
	// deployer never bound there.
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "%v", err)
	require.Contains(t, styrmin.ErrorMessage(err), "is forbidden")
	requireNothing()

	_, err = f.Catalog.ApprovePermissions(ctx, "node-reader", "1.0.0", "root", nil)
	require.NoError(t, err)
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, install)))
	role, err := kube.RbacV1().ClusterRoles().Get(ctx, name+"-nodes", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"nodes"}, role.Rules[0].Resources)
	binding, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, name+"-nodes", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, name, binding.Subjects[0].Namespace)
	_, err = kube.CoreV1().ConfigMaps(name).Get(ctx, name+"-config", metav1.GetOptions{})
	require.NoError(t, err)

	// Helm applied them as the namespace's deployer, which holds the
	// approval while the deployment exists: a delete uninstalls them and
	// takes it back.
	grants := func() []rbacv1.ClusterRole {
		list, err := kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: "styrmin.io/role=grant,styrmin.io/namespace=" + name})
		require.NoError(t, err)
		return list.Items
	}
	require.Len(t, grants(), 1, "the deployer's grant")
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: name, Confirm: name, By: "alice"})))
	require.Empty(t, grants(), "the grant is taken back")
	_, err = kube.RbacV1().ClusterRoles().Get(ctx, name+"-nodes", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the chart's ClusterRole is uninstalled: %v", err)
}

// lookupReaderBundle is a local driver "lookup-reader" whose chart creates
// its ClusterRole only where its own namespace exists (Helm's lookup, which
// the deployer may make of its namespace): rendered without a cluster, as
// the catalogue and the queueing render it, it creates nothing beyond its
// namespace.
var lookupReaderBundle = deploymenttest.ChartDriver("lookup-reader", "1.0.0", "A driver whose chart reads the cluster to decide what it creates.", `apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ .Release.Name }}-config"}
data: {hello: world}
{{- if lookup "v1" "Namespace" "" .Release.Namespace }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "{{ .Release.Name }}-nodes"}
rules: [{apiGroups: [""], resources: [nodes], verbs: [list]}]
{{- end }}
`)

// TestARefusalOnlyTheTaskFindsKeepsItsItemsForAnAdminToApprove: a chart
// whose render depends on the cluster passes the queueing and is refused by
// the install task's check on the local cluster, which applies nothing; the
// failed task's result names the items (its page offers admins to approve
// them), and once an admin approved exactly those, an upgrade installs it.
func TestARefusalOnlyTheTaskFindsKeepsItsItemsForAnAdminToApprove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.SetupCluster(t)
	_, err := f.Catalog.ImportFS(ctx, lookupReaderBundle, "lookup-reader", "root")
	require.NoError(t, err)
	name := kubetest.UniqueName("lookup")
	f.CleanUp(t, name)
	kube := clusterAdmin(t) // the worker's client acts as the deployer, which a refused install never got

	failed := f.WaitEnded(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Install{Driver: "lookup-reader", DriverVersion: "1.0.0", Name: name, AppVersion: "1.0.0", By: "alice"})).TaskID)
	require.Equal(t, executor.TaskFailed, failed.Status)
	require.Contains(t, failed.Message, "creates ClusterRole (rbac.authorization.k8s.io)")
	refused := failed.RefusedPermissions()
	require.NotNil(t, refused, "the result keeps the refusal: %s", failed.Result)
	require.Equal(t, "lookup-reader", refused.Driver)
	require.Equal(t, "1.0.0", refused.Version)
	require.Equal(t, []string{"creates ClusterRole (rbac.authorization.k8s.io)", "grants ClusterRole: list nodes (core)"}, refused.Items.Lines())
	_, err = kube.CoreV1().ConfigMaps(name).Get(ctx, name+"-config", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "nothing was applied: %v", err)

	_, err = f.Catalog.ApprovePermissions(ctx, "lookup-reader", "1.0.0", "root", &refused.Items)
	require.NoError(t, err)
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Upgrade{Name: name, DriverVersion: "1.0.0", AppVersion: "1.0.0", By: "alice"})))
	_, err = kube.RbacV1().ClusterRoles().Get(ctx, name+"-nodes", metav1.GetOptions{})
	require.NoError(t, err, "the approved ClusterRole exists")
	t.Cleanup(func() {
		kube.RbacV1().ClusterRoles().Delete(context.Background(), name+"-nodes", metav1.DeleteOptions{}) //nolint:errcheck // gone with the release already
	})
}

// clusterAdmin is a client of the local cluster with the test's own
// (administrator's) identity, to see what exists whatever Styrmin may see.
func clusterAdmin(t *testing.T) kubernetes.Interface {
	t.Helper()
	config, err := clientcmd.BuildConfigFromFlags("", kubetest.Kubeconfig(t))
	require.NoError(t, err)
	client, err := kubernetes.NewForConfig(config)
	require.NoError(t, err)
	return client
}
