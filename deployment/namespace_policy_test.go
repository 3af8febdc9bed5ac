package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
)

func TestReservedNamespaces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		namespace, own string
		reserved       bool
	}{
		{"kube-system", "", true},
		{"kube-public", "", true},
		{"kube-node-lease", "", true},
		{"default", "", true},
		{"styrmin", "styrmin", true},
		{"styrmin", "", false},
		{"shop", "styrmin", false},
		{"kubeflow", "", false},
		{"my-kube-apps", "", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.reserved, deployment.Reserved(tt.namespace, tt.own), "namespace %q (own %q)", tt.namespace, tt.own)
	}
}

// installInto queues an install of Hello Web named shop into namespace.
func installInto(f deploymenttest.Fixture, namespace string) error {
	req := deploymenttest.HelloWeb("shop")
	req.Namespace = namespace
	_, err := f.Svc.Queue(context.Background(), req)
	return err
}

func TestAnOperatorCannotDeployIntoKubeSystem(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)

	err := installInto(f, "kube-system")

	require.Equal(t, map[string]string{"namespace": "namespace kube-system is reserved for Kubernetes or Styrmin itself; deploy elsewhere, or ask an admin to allow kube-system by its exact name on the Namespaces page"},
		deploymenttest.FieldsOf(t, err))
	requireNothingRecorded(t, f)
}

func TestAReservedNamespaceIsAllowedOnlyByItsExactName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, nil)

	_, err := f.Svc.SetNamespacePolicy(ctx, deployment.NamespacePolicy{Allowed: []string{"*", "kube-*", "d*"}, CreateNamespaces: true}, "admin")
	require.NoError(t, err)
	require.Contains(t, deploymenttest.FieldsOf(t, installInto(f, "kube-system"))["namespace"], "reserved", "a pattern does not allow a reserved namespace")
	require.Contains(t, deploymenttest.FieldsOf(t, installInto(f, "default"))["namespace"], "reserved")

	_, err = f.Svc.SetNamespacePolicy(ctx, deployment.NamespacePolicy{Allowed: []string{"default"}}, "admin")
	require.NoError(t, err)
	require.NoError(t, installInto(f, "default"), "an admin allowed it by name")
}

func TestOperatorsDeployOnlyWhereThePatternsAllow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, nil)
	policy, err := f.Svc.NamespacePolicy(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"*"}, policy.Allowed, "out of the box, any namespace but the reserved ones")
	require.True(t, policy.CreateNamespaces)

	policy, err = f.Svc.SetNamespacePolicy(ctx, deployment.NamespacePolicy{Allowed: []string{" team-* ", "", "lab", "lab"}}, "admin")
	require.NoError(t, err)
	require.Equal(t, []string{"team-*", "lab"}, policy.Allowed, "trimmed, blank and repeated entries dropped")
	require.False(t, policy.CreateNamespaces)
	require.Equal(t, "admin", policy.UpdatedBy)

	require.Equal(t, map[string]string{"namespace": "namespace shop is not allowed: deployments may go into team-*, lab; choose one of those, or ask an admin to allow it on the Namespaces page"},
		deploymenttest.FieldsOf(t, installInto(f, "shop")))
	require.NoError(t, installInto(f, "team-blue"))
}

func TestAnEmptyPolicyAllowsNoNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, nil)
	_, err := f.Svc.SetNamespacePolicy(ctx, deployment.NamespacePolicy{}, "admin")
	require.NoError(t, err)

	require.Equal(t, map[string]string{"namespace": "an admin has allowed no namespace yet; ask one to allow namespaces on the Namespaces page"},
		deploymenttest.FieldsOf(t, installInto(f, "shop")))
}

func TestANamespacePolicyTakesOnlyNamespacePatterns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, nil)

	_, err := f.Svc.SetNamespacePolicy(ctx, deployment.NamespacePolicy{Allowed: []string{"team-*", "Team A", "[a-"}}, "admin")

	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Equal(t, `These patterns are not namespace patterns: "Team A", "[a-". Use lower-case letters, digits and '-', with * (any characters), ? (one) or [a-z] (a class).`, styrmin.ErrorMessage(err))
	policy, err := f.Svc.NamespacePolicy(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"*"}, policy.Allowed, "the policy in force is unchanged")
}
