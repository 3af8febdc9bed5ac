package permissions_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/permissions"
)

// operator is a chart with a ClusterRole, its ClusterRoleBinding to the
// chart's ServiceAccount, a Role in the release's namespace and a CRD.
const operator = `
---
# Source: op/templates/sa.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: rel-op
  namespace: ns1
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: rel-op
rules:
- apiGroups: [""]
  resources: [secrets, pods]
  verbs: [get, list]
- nonResourceURLs: [/metrics]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: rel-op
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: rel-op}
subjects:
- {kind: ServiceAccount, name: rel-op, namespace: ns1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: rel-leader
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [update]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rel-op
`

func TestParseListsClusterKindsRulesAndBindings(t *testing.T) {
	t.Parallel()
	s, err := permissions.Parse(operator, "ns1")
	require.NoError(t, err)
	require.Equal(t, []string{
		"creates CustomResourceDefinition (apiextensions.k8s.io)",
		"creates ClusterRole (rbac.authorization.k8s.io)",
		"creates ClusterRoleBinding (rbac.authorization.k8s.io)",
		"grants ClusterRole: get /metrics (core)",
		"grants ClusterRole: get pods (core)",
		"grants ClusterRole: list pods (core)",
		"grants ClusterRole: get secrets (core)",
		"grants ClusterRole: list secrets (core)",
		"grants Role: update leases (coordination.k8s.io)",
		"binds ClusterRoleBinding of the chart's ClusterRole to the chart's ServiceAccount",
	}, s.Lines())
}

func TestTheSameChartInAnotherReleaseNeedsTheSame(t *testing.T) {
	t.Parallel()
	a, err := permissions.Parse(operator, "ns1")
	require.NoError(t, err)
	other := strings.NewReplacer("rel-", "other-", "ns1", "ns2").Replace(operator)
	b, err := permissions.Parse(other, "ns2")
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.True(t, permissions.Missing(b, a).Empty())
}

func TestParseNamesWhatIsOutsideTheChart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, manifest, want string }{
		{"a built-in role", `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: x}
roleRef: {kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: default, namespace: ns1}]`,
			"binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default"},
		{"a group", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: x}
roleRef: {kind: ClusterRole, name: edit}
subjects: [{kind: Group, name: "system:authenticated"}]`,
			"binds RoleBinding of ClusterRole edit to Group system:authenticated"},
		{"a role binding in another namespace", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: x, namespace: kube-system}
roleRef: {kind: Role, name: extension-apiserver-authentication-reader}
subjects: [{kind: ServiceAccount, name: api, namespace: ns1}]`,
			"binds RoleBinding in namespace kube-system of Role extension-apiserver-authentication-reader to ServiceAccount api"},
		{"a service account of another namespace", `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: x}
roleRef: {kind: Role, name: r}
subjects: [{kind: ServiceAccount, name: builder, namespace: ci}]`,
			"binds RoleBinding of Role r to ServiceAccount builder in namespace ci"},
		{"an aggregating role", `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: x}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {rbac.example.com/aggregate: "true"}}]`,
			"aggregates the ClusterRoles selected by rbac.example.com/aggregate=true"},
		{"a custom resource", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: x}`,
			"creates Certificate (cert-manager.io), of a scope Styrmin does not know"},
		{"a binding hidden in a list", `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: x}
- apiVersion: v1
  kind: ConfigMapList
  items:
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRoleBinding
    metadata: {name: x}
    roleRef: {kind: ClusterRole, name: view}
    subjects: [{kind: User, name: eve}]`,
			"binds ClusterRoleBinding of ClusterRole view to User eve"},
		{"a JSON document", `{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}`,
			"creates Namespace (core)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := permissions.Parse(tc.manifest, "ns1")
			require.NoError(t, err)
			require.Contains(t, s.Lines(), tc.want)
		})
	}
}

func TestANamespacedChartNeedsNothing(t *testing.T) {
	t.Parallel()
	s, err := permissions.Parse(`
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: b}
---
# only a comment
`, "ns1")
	require.NoError(t, err)
	require.True(t, s.Empty(), s.Lines())
}

func TestMissingNamesWhatTheApprovalDoesNotCover(t *testing.T) {
	t.Parallel()
	need, err := permissions.Parse(operator, "ns1")
	require.NoError(t, err)
	require.True(t, permissions.Missing(need, need).Empty())

	approved := need
	approved.Bindings = nil
	approved.Rules = []permissions.Rule{
		{Role: "ClusterRole", APIGroup: "", Resource: "*", Verb: "*"},
		{Role: "Role", APIGroup: "coordination.k8s.io", Resource: "leases", Verb: "update"},
	}
	missing := permissions.Missing(need, approved)
	require.Equal(t, []string{"binds ClusterRoleBinding of the chart's ClusterRole to the chart's ServiceAccount"}, missing.Lines(),
		"a wildcard rule covers the core group's rules; the binding is missing")

	err = permissions.Check("op", "1.0.0", need, permissions.Set{}, need)
	var refused *permissions.RefusedError
	require.ErrorAs(t, err, &refused)
	require.Contains(t, err.Error(), "driver op 1.0.0")
	require.Contains(t, err.Error(), "creates ClusterRoleBinding (rbac.authorization.k8s.io)")
	require.NotContains(t, err.Error(), "default values", "everything missing is in the version's own permissions")
	require.NoError(t, permissions.Check("op", "1.0.0", permissions.Set{}, permissions.Set{}, permissions.Set{}))
}

// TestARefusalNamesExactlyWhatOtherValuesAddBeyondTheDefaults: the chart
// with default values needs a ClusterRole rule (approved); other values add a
// ClusterRoleBinding to cluster-admin: the refusal names that item, and only it.
func TestARefusalNamesExactlyWhatOtherValuesAddBeyondTheDefaults(t *testing.T) {
	t.Parallel()
	defaults := permissions.Set{
		Kinds: []permissions.Kind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Scope: permissions.ScopeCluster}},
		Rules: []permissions.Rule{{Role: "ClusterRole", Resource: "nodes", Verb: "list"}},
	}
	extra := permissions.Binding{Binding: "ClusterRoleBinding", RoleKind: "ClusterRole", RoleName: "cluster-admin", SubjectKind: "ServiceAccount"}
	need := defaults
	need.Kinds = append(slices.Clone(need.Kinds), permissions.Kind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding", Scope: permissions.ScopeCluster})
	need.Bindings = []permissions.Binding{extra}

	err := permissions.Check("op", "1.0.0", need, defaults, defaults)
	var refused *permissions.RefusedError
	require.ErrorAs(t, err, &refused)
	require.Equal(t, []string{
		"creates ClusterRoleBinding (rbac.authorization.k8s.io)",
		"binds ClusterRoleBinding of ClusterRole cluster-admin to the chart's ServiceAccount",
	}, refused.Beyond().Lines())
	require.Equal(t, "With these values, the chart of driver op 1.0.0 creates more than with its default values, and no admin "+
		"approved it for this driver version: creates ClusterRoleBinding (rbac.authorization.k8s.io); binds ClusterRoleBinding of "+
		"ClusterRole cluster-admin to the chart's ServiceAccount. An admin can approve it for this driver version (the driver's page, "+
		"Permissions); nothing was applied.", err.Error())

	// Nothing approved: the defaults' own items and the extra ones are named apart.
	err = permissions.Check("op", "1.0.0", need, permissions.Set{}, defaults)
	require.Contains(t, err.Error(), "creates what no admin approved for this driver version: creates ClusterRole (rbac.authorization.k8s.io); grants ClusterRole: list nodes (core).")
	require.Contains(t, err.Error(), "more than with its default values, and no admin approved it for this driver version: creates ClusterRoleBinding")

	// Once the extra items are approved as well, the same values pass.
	require.NoError(t, permissions.Check("op", "1.0.0", need, permissions.Union(defaults, refused.Beyond()), defaults))
}

func TestUnionKeepsEachItemOnce(t *testing.T) {
	t.Parallel()
	a := permissions.Set{Rules: []permissions.Rule{{Role: "ClusterRole", Resource: "pods", Verb: "get"}}, Aggregations: []string{"x=y"}}
	b := permissions.Set{Rules: []permissions.Rule{{Role: "ClusterRole", Resource: "pods", Verb: "get"}, {Role: "ClusterRole", Resource: "nodes", Verb: "get"}}}
	u := permissions.Union(a, b)
	require.Equal(t, []string{"grants ClusterRole: get nodes (core)", "grants ClusterRole: get pods (core)", "aggregates the ClusterRoles selected by x=y"}, u.Lines())
	require.True(t, permissions.Missing(b, u).Empty())
}

func TestValidateRefusesItemsThatNameNothing(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]permissions.Set{
		"empty":                   {},
		"kind without a kind":     {Kinds: []permissions.Kind{{Group: "x", Scope: permissions.ScopeCluster}}},
		"namespaced kind":         {Kinds: []permissions.Kind{{Kind: "Pod", Scope: permissions.ScopeNamespace}}},
		"rule of no role":         {Rules: []permissions.Rule{{Role: "Binding", Resource: "pods", Verb: "get"}}},
		"rule without a verb":     {Rules: []permissions.Rule{{Role: "Role", Resource: "pods"}}},
		"empty aggregation":       {Aggregations: []string{""}},
		"binding of no subject":   {Bindings: []permissions.Binding{{Binding: "RoleBinding", RoleKind: "Role", SubjectKind: "Robot"}}},
		"outside of no namespace": {Outside: []permissions.Outside{{Kind: "ConfigMap"}}},
		"outside of no kind":      {Outside: []permissions.Outside{{Namespace: "kube-system"}}},
		"unknown pod need":        {PodSecurity: []string{"root"}},
		"capability of no name":   {PodSecurity: []string{"capability "}},
		"baseline's capability":   {PodSecurity: []string{"capability CHOWN"}},
		"capability with CAP_":    {PodSecurity: []string{"capability CAP_SYS_ADMIN"}},
		"safe sysctl":             {PodSecurity: []string{"sysctl net.ipv4.tcp_syncookies"}},
	} {
		err := s.Validate()
		require.Error(t, err, name)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), name)
	}
	for _, ok := range []permissions.Set{
		{Bindings: []permissions.Binding{{Binding: "ClusterRoleBinding", RoleKind: "ClusterRole", RoleName: "view", SubjectKind: "Group", SubjectName: "devs"}}},
		{Outside: []permissions.Outside{{Kind: "ConfigMap", Namespace: "kube-system"}}},
		{PodSecurity: []string{permissions.PodHostNetwork, "capability NET_ADMIN", "sysctl kernel.msgmax"}},
	} {
		require.NoError(t, ok.Validate(), ok.Lines())
	}
}

func TestARoleRuleIsNotCoveredByAClusterRoleRule(t *testing.T) {
	t.Parallel()
	need := permissions.Set{Rules: []permissions.Rule{{Role: "Role", Namespace: "kube-system", Resource: "secrets", Verb: "get"}}}
	approved := permissions.Set{Rules: []permissions.Rule{{Role: "Role", Resource: "secrets", Verb: "get"}}}
	require.Len(t, permissions.Missing(need, approved).Rules, 1, "a Role in another namespace is another grant")
}

// TestHostileManifestsAreRefusedWithinBudget feeds Parse what a hostile
// chart can render: each is refused with a clear error, quickly.
func TestHostileManifestsAreRefusedWithinBudget(t *testing.T) {
	t.Parallel()
	many := strings.Repeat("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", permissions.MaxObjects+1)
	var nested strings.Builder
	nested.WriteString("apiVersion: v1\nkind: ConfigMap\ndata: ")
	nested.WriteString(strings.Repeat("[", 200000))
	deepList := "apiVersion: v1\nkind: List\nitems:\n"
	for i := 1; i <= 6; i++ {
		deepList += strings.Repeat("  ", i) + "- kind: List\n" + strings.Repeat("  ", i) + "  items:\n"
	}
	laughs := "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
	for i := 'b'; i <= 'j'; i++ {
		prev := string(i - 1)
		laughs += fmt.Sprintf("%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	for _, tc := range []struct{ name, manifest, want string }{
		{"huge", strings.Repeat("#", permissions.MaxManifestBytes+1), "more than the 32 MiB"},
		{"many documents", many, "more than 10000 objects"},
		{"deeply nested", nested.String(), "does not parse"},
		{"lists in lists", deepList, "nests lists more than 4 deep"},
		{"alias bomb", laughs, "does not parse"},
		{"not YAML", "kind: [unclosed", "does not parse"},
		{"deeply nested JSON", `{"apiVersion": "v1", "kind": "ConfigMap", "data": ` + strings.Repeat("[", 200000), "does not parse"},
		{"JSON that goes on as YAML", "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"x\"}}\n---\nkind: ClusterRoleBinding\n", "does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := permissions.Parse(tc.manifest, "ns1")
			require.Error(t, err)
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
			require.Contains(t, err.Error(), tc.want)
			require.Less(t, time.Since(start), 30*time.Second, "the budget holds")
		})
	}
}

// TestObjectsInOtherNamespacesNeedApproval: a namespaced object with its own
// namespace is created there, not in the release's: each kind and namespace
// needs an admin's approval, and only that kind in that namespace is covered.
func TestObjectsInOtherNamespacesNeedApproval(t *testing.T) {
	t.Parallel()
	s, err := permissions.Parse(`
apiVersion: v1
kind: ConfigMap
metadata: {name: coredns, namespace: kube-system}
---
apiVersion: v1
kind: Secret
metadata: {name: mine, namespace: ns1}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: spy, namespace: other-team}
  spec: {containers: [{name: c, image: busybox}]}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: RoleBinding
  metadata: {name: x, namespace: kube-system}
  roleRef: {kind: ClusterRole, name: view}
  subjects: [{kind: User, name: eve}]
---
apiVersion: v1
kind: Namespace
metadata: {name: not-namespaced, namespace: kube-system}
`, "ns1")
	require.NoError(t, err)
	require.Equal(t, []permissions.Outside{
		{Kind: "ConfigMap", Namespace: "kube-system"},
		{Kind: "Pod", Namespace: "other-team"},
		{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding", Namespace: "kube-system"},
	}, s.Outside, "the Secret is in the release's namespace; a Namespace has none")
	require.Contains(t, s.Lines(), "creates ConfigMap (core) in namespace kube-system")
	require.Contains(t, s.Lines(), "binds RoleBinding in namespace kube-system of ClusterRole view to User eve")

	approved := permissions.Set{Outside: []permissions.Outside{{Kind: "ConfigMap", Namespace: "kube-public"}, {Kind: "Pod", Namespace: "other-team"}}}
	require.Equal(t, []string{
		"creates ConfigMap (core) in namespace kube-system",
		"creates RoleBinding (rbac.authorization.k8s.io) in namespace kube-system",
	}, permissions.Missing(permissions.Set{Outside: s.Outside}, approved).Lines(), "another namespace is another item")
}

// TestAChartThatRendersAHelmReleaseRecordIsRefused: Helm keeps a release's
// history in Secrets (or ConfigMaps) of its own; a chart that renders one
// could forge its release's history, so Parse refuses it whatever an admin
// approved.
func TestAChartThatRendersAHelmReleaseRecordIsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, manifest string }{
		{"a Secret of Helm's type", `
apiVersion: v1
kind: Secret
type: helm.sh/release.v1
metadata: {name: sh.helm.release.v1.rel.v7}
data: {release: SDRzSUFBQUFBQUFBLw==}`},
		{"a ConfigMap with Helm's labels", `
apiVersion: v1
kind: ConfigMap
metadata:
  name: rel.v7
  labels: {owner: helm, name: rel, version: "7", status: deployed}
data: {release: H4sIAAAAAAAA/w==}`},
		{"a Secret with Helm's labels in a List", `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  metadata:
    name: sh.helm.release.v1.rel.v7
    labels: {owner: helm, name: rel, version: "7"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := permissions.Parse(tc.manifest, "ns1")
			require.Error(t, err)
			require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
			require.Contains(t, err.Error(), "renders a Helm release record")
		})
	}

	s, err := permissions.Parse(`
apiVersion: v1
kind: Secret
type: Opaque
metadata:
  name: x
  labels: {owner: helm, name: rel}`, "ns1")
	require.NoError(t, err, "a Secret that says it is Helm's but is not a record (no version) is the chart's")
	require.True(t, s.Empty())
}
