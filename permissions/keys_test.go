package permissions_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/permissions"
)

// TestKeysAreReadAsKubernetesReadsThem: Kubernetes reads keys
// case-sensitively (and Helm's resource builder reads `items` exactly), so a
// chart must not hide an object behind a key that another reader matches
// regardless of case, or behind a key given twice. Each of these manifests
// is refused, naming the key and the object.
func TestKeysAreReadAsKubernetesReadsThem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, manifest, want string }{
		{"an Items key makes a binding to cluster-admin look like an empty list", `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
Items: []
metadata: {name: own-the-cluster}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: default, namespace: ns1}]`,
			`"Items" at the top level of the ClusterRoleBinding "own-the-cluster"`},
		{"the same in a JSON document", `{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "Items": [],
  "metadata": {"name": "own-the-cluster"}, "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"},
  "subjects": [{"kind": "Group", "name": "system:authenticated"}]}`,
			`"Items" at the top level of the ClusterRoleBinding "own-the-cluster"`},
		{"kind and Kind in YAML", `
apiVersion: v1
kind: ConfigMap
Kind: Namespace
metadata: {name: x}`,
			`the keys "Kind" and "kind" in one object, at the top level of`},
		{"kind and Kind in JSON", `{"apiVersion": "v1", "Kind": "Namespace", "kind": "ConfigMap", "metadata": {"name": "x"}}`,
			`the keys "Kind" and "kind" in one object, at the top level of`},
		{"kind twice in YAML", `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
kind: ConfigMap
metadata: {name: x}`,
			`has the key "kind" twice in one object, in the ConfigMap "x"`},
		{"kind twice in JSON", `{"apiVersion": "v1", "kind": "ClusterRoleBinding", "kind": "ConfigMap", "metadata": {"name": "x"}}`,
			`has the key "kind" twice in one object, at the top level of the ConfigMap "x"`},
		{"a role's name twice deep in JSON", `{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "x"},
  "roleRef": {"kind": "ClusterRole", "name": "cluster-admin", "name": "view"}, "subjects": [{"kind": "User", "name": "eve"}]}`,
			`the key "name" twice in one object, at roleRef of the RoleBinding "x"`},
		{"a role's name in two cases deep in YAML", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: x}
roleRef: {kind: ClusterRole, name: view, Name: cluster-admin}
subjects: [{kind: User, name: eve}]`,
			`the keys "Name" and "name" in one object, at roleRef of the RoleBinding "x"`},
		{"a Namespace key in metadata", `
apiVersion: v1
kind: ConfigMap
metadata: {name: x, Namespace: kube-system}`,
			`"Namespace" in metadata of the ConfigMap "x"`},
		{"Annotations in metadata, which Helm's hook sorting would read", `
apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  Annotations: {helm.sh/hook: pre-install}`,
			`"Annotations" in metadata of the ConfigMap "x"`},
		{"a Kelvin sign that folds to k", "apiVersion: v1\n\u212aind: Namespace\nmetadata: {name: x}",
			"\"\u212aind\" at the top level of the object \"x\""},
		{"Kind and kind in a list's item", `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  Kind: ClusterRoleBinding
  metadata: {name: x}`,
			`the keys "Kind" and "kind" in one object, at items[0] of an object of kind List`},
		{"Items in a list's item", `
apiVersion: v1
kind: List
items:
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRoleBinding
  Items: []
  metadata: {name: x}
  roleRef: {kind: ClusterRole, name: cluster-admin}
  subjects: [{kind: User, name: eve}]`,
			`"Items" at the top level of the ClusterRoleBinding "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := permissions.Parse(tc.manifest, "ns1")
			require.Error(t, err, "parsed as %v", s.Lines())
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestKeysOfOtherCasesBelowTheTopAreNotRead: below the top level and
// metadata, a key in another case than Kubernetes' field is read by nobody
// (Kubernetes ignores it), so Styrmin ignores it too rather than read it as
// the field.
func TestKeysOfOtherCasesBelowTheTopAreNotRead(t *testing.T) {
	t.Parallel()
	s, err := permissions.Parse(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      HostNetwork: true
      containers: [{name: c, image: busybox}]`, "ns1")
	require.NoError(t, err)
	require.True(t, s.Empty(), s.Lines())
}
