package release_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"

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

// bombChart is the wild chart with a template that builds a 2 GB text,
// when the render is an upgrade's only if onUpgrade.
func bombChart(t *testing.T, onUpgrade bool) *chart.Chart {
	t.Helper()
	c := wildChart(t)
	bomb := `x: {{ repeat 2000000000 "x" }}`
	if onUpgrade {
		bomb = `{{ if .Release.IsUpgrade }}` + bomb + `{{ end }}`
	}
	c.Templates = append(c.Templates, &chart.File{Name: "templates/bomb.yaml", Data: []byte(bomb)})
	return c
}

// totalAlloc is what this process has allocated so far.
func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// TestAChartThatBombsIsRefusedBeforeHelmRendersIt: an install or upgrade
// whose chart passes the render's budget is refused with the budget's
// error, records nothing, and Helm never rendered the bomb in this process
// (which would have allocated its 2 GB here). Not parallel: the allocation
// count is the process's.
func TestAChartThatBombsIsRefusedBeforeHelmRendersIt(t *testing.T) {
	client := releasetest.New(t).Client
	ctx := context.Background()
	before := totalAlloc()

	_, err := client.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "bomb", Chart: bombChart(t, false)})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	require.Contains(t, styrmin.ErrorMessage(err), "The templates of chart wild need more than 512 MiB of memory to render")
	_, err = client.History(ctx, ns, "bomb")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "a refused install records no revision")

	_, err = client.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "bomb", Chart: bombChart(t, true)})
	require.NoError(t, err, "the bomb is an upgrade's only")
	_, err = client.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Owner: owner, Name: "bomb", Chart: bombChart(t, true)})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	require.Contains(t, styrmin.ErrorMessage(err), "need more than 512 MiB of memory to render")
	history, err := client.History(ctx, ns, "bomb")
	require.NoError(t, err)
	require.Len(t, history, 1, "a refused upgrade records no revision")

	require.Less(t, totalAlloc()-before, uint64(512<<20), "the bomb did not go off in this process")
}
