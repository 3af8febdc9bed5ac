package deployer

import (
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/styrmin/styrmin/permissions"
)

// knownMapper is a RESTMapper of a few kinds, which it never forgets.
type knownMapper struct{ meta.RESTMapper }

func (knownMapper) Reset() {}

func testClient() *Client {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "rbac.authorization.k8s.io", Version: "v1"}, {Group: "example.com", Version: "v1"}})
	m.Add(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot)
	m.Add(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, meta.RESTScopeNamespace)
	return &Client{mapper: knownMapper{m}}
}

// TestApprovedItemsBecomeTheRulesTheDeployerNeeds documents how each kind
// of approved item is granted: cluster-wide, or within the namespace only.
func TestApprovedItemsBecomeTheRulesTheDeployerNeeds(t *testing.T) {
	all := writeVerbs
	rbac := rbacv1.GroupName
	tests := []struct {
		name                string
		approved            permissions.Set
		cluster, namespaced []rbacv1.PolicyRule
	}{
		{name: "nothing approved grants nothing"},
		{
			name:     "a cluster-scoped kind, cluster-wide, with the verbs Helm needs",
			approved: permissions.Set{Kinds: []permissions.Kind{{Group: rbac, Kind: "ClusterRole", Scope: permissions.ScopeCluster}}},
			cluster:  []rbacv1.PolicyRule{{APIGroups: []string{rbac}, Resources: []string{"clusterroles"}, Verbs: all}},
		},
		{
			name:       "a custom kind the cluster knows to be namespaced, in the namespace only",
			approved:   permissions.Set{Kinds: []permissions.Kind{{Group: "example.com", Kind: "Widget", Scope: permissions.ScopeUnknown}}},
			namespaced: []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: all}},
		},
		{
			name:     "a kind the cluster does not know yet, by its usual plural, cluster-wide",
			approved: permissions.Set{Kinds: []permissions.Kind{{Group: "example.com", Kind: "Gadget", Scope: permissions.ScopeUnknown}}},
			cluster:  []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"gadgets"}, Verbs: all}},
		},
		{
			name: "a ClusterRole's rules cluster-wide, a Role's in the namespace, another namespace's Role's not at all",
			approved: permissions.Set{Rules: []permissions.Rule{
				{Role: "ClusterRole", Resource: "nodes", Verb: "list"},
				{Role: "ClusterRole", Resource: "/metrics", Verb: "get"},
				{Role: "Role", APIGroup: "coordination.k8s.io", Resource: "leases", Verb: "update"},
				{Role: "Role", Namespace: "kube-system", Resource: "secrets", Verb: "get"},
			}},
			cluster: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}},
				{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}},
			},
			namespaced: []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"update"}}},
		},
		{
			name: "binding a named role needs bind on it; the chart's own role needs nothing more",
			approved: permissions.Set{Bindings: []permissions.Binding{
				{Binding: "ClusterRoleBinding", RoleKind: "ClusterRole", RoleName: "view", SubjectKind: "ServiceAccount"},
				{Binding: "RoleBinding", RoleKind: "ClusterRole", RoleName: "edit", SubjectKind: "ServiceAccount"},
				{Binding: "ClusterRoleBinding", RoleKind: "ClusterRole", SubjectKind: "ServiceAccount"},
			}},
			cluster:    []rbacv1.PolicyRule{{APIGroups: []string{rbac}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"}, ResourceNames: []string{"view"}}},
			namespaced: []rbacv1.PolicyRule{{APIGroups: []string{rbac}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"}, ResourceNames: []string{"edit"}}},
		},
		{
			name:     "an aggregating ClusterRole needs escalate, its rules being unknown when it is made",
			approved: permissions.Set{Aggregations: []string{"team=a"}},
			cluster:  []rbacv1.PolicyRule{{APIGroups: []string{rbac}, Resources: []string{"clusterroles"}, Verbs: []string{"escalate"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster, namespaced, err := testClient().rules(tt.approved)
			require.NoError(t, err)
			require.Equal(t, tt.cluster, cluster)
			require.Equal(t, tt.namespaced, namespaced)
		})
	}
}
