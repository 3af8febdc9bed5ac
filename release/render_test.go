package release_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
)

// refuseBindings is a check that refuses any ClusterRoleBinding and counts its calls.
func refuseBindings(calls *int) release.Check {
	return func(manifest string) error {
		*calls++
		if strings.Contains(manifest, "kind: ClusterRoleBinding") {
			return styrmin.Errorf(styrmin.EFORBIDDEN, "no ClusterRoleBinding approved")
		}
		return nil
	}
}

func TestRenderWithoutAClusterHoldsTheCRDsAndTheResources(t *testing.T) {
	t.Parallel()
	out, err := release.Render(context.Background(), wildChart(t), map[string]any{"greeting": "hi"}, ns, "wild")
	require.NoError(t, err)
	for _, want := range []string{"kind: CustomResourceDefinition", "kind: ClusterRoleBinding", "kind: Widget", "name: wild-sub"} {
		require.Contains(t, out, want)
	}
}

func TestACheckThatRefusesAppliesNothing(t *testing.T) {
	t.Parallel()
	client := releasetest.New(t).Client
	ctx := context.Background()
	var calls int

	_, err := client.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Check: refuseBindings(&calls)})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	_, err = client.History(ctx, ns, "wild")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "a refused install records no revision")

	allow := func(string) error { return nil }
	_, err = client.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Check: allow})
	require.NoError(t, err)
	_, err = client.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Values: map[string]any{"replicas": 2}})
	require.NoError(t, err)

	_, err = client.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Check: refuseBindings(&calls)})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	_, err = client.Rollback(ctx, release.RollbackOptions{Namespace: ns, Owner: owner, Name: "wild", Revision: 1, Check: refuseBindings(&calls)})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	history, err := client.History(ctx, ns, "wild")
	require.NoError(t, err)
	require.Len(t, history, 2, "a refused upgrade or rollback adds no revision")
	require.Equal(t, 3, calls, "each refusal came from the check, before Helm ran")
}
