package release_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
)

const ns = "apps"

// owner is the Styrmin installation and deployment the tests act for.
var owner = release.Owner{Installation: "test-installation", Deployment: 7}

// ownerLabels are the release labels that mark owner.
var ownerLabels = map[string]string{release.InstallationLabel: "test-installation", release.DeploymentLabel: "7"}

// wildChart is a chart as found in the wild: appVersion v1.2.3, a subchart,
// a CRD, cluster-scoped RBAC, a Secret and NOTES.txt.
func wildChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := loader.Load("testdata/wild")
	require.NoError(t, err)
	return c
}

// install installs the wild chart as release "wild" with greeting.
func install(t *testing.T, client *release.Client, greeting string) *release.Release {
	t.Helper()
	rel, err := client.Install(context.Background(), release.InstallOptions{
		Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Values: map[string]any{"greeting": greeting}, Wait: true,
	})
	require.NoError(t, err)
	return rel
}

func TestInstallRendersAWildChart(t *testing.T) {
	t.Parallel()
	client := releasetest.New(t).Client

	rel := install(t, client, "hi")

	require.Equal(t, "wild", rel.Name)
	require.Equal(t, ns, rel.Namespace)
	require.Equal(t, release.Revision{
		Number: 1, Status: release.StatusDeployed, Chart: "wild", ChartVersion: "0.3.0", AppVersion: "v1.2.3",
		Updated: rel.Updated, Description: "Install complete",
	}, rel.Revision)
	require.False(t, rel.Updated.IsZero())
	require.Equal(t, "wild says hi from version v1.2.3.\n", rel.Notes)
	for _, want := range []string{"kind: Widget\n", "kind: ClusterRole\n", "kind: ClusterRoleBinding\n", "name: apps-wild-reader", "image: \"nginx:1.2.3\"", "name: wild-sub", "port: 8080"} {
		require.Contains(t, rel.Manifest, want)
	}
	require.NotContains(t, rel.Manifest, "CustomResourceDefinition", "CRDs are installed before the release, not part of its manifest")

	status, err := client.Status(context.Background(), ns, "wild")
	require.NoError(t, err)
	require.Equal(t, rel, status)
}

func TestUpgradeRollbackHistoryAndValues(t *testing.T) {
	t.Parallel()
	client := releasetest.New(t).Client
	ctx := context.Background()
	install(t, client, "hi")

	rel, err := client.Upgrade(ctx, release.UpgradeOptions{
		Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Values: map[string]any{"replicas": 3}, Description: "Upgrade by alice",
	})
	require.NoError(t, err)
	require.Equal(t, 2, rel.Number)
	require.Equal(t, "Upgrade by alice", rel.Description)
	require.Contains(t, rel.Manifest, "replicas: 3")
	require.Contains(t, rel.Manifest, `value: "hello"`, "values replace the previous ones: greeting is back to the chart's default")

	values, err := client.GetValues(ctx, ns, "wild", 1)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"greeting": "hi"}, values)
	values, err = client.GetValues(ctx, ns, "wild", 0)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"replicas": 3}, values)

	rel, err = client.Rollback(ctx, release.RollbackOptions{Namespace: ns, Owner: owner, Name: "wild", Revision: 1})
	require.NoError(t, err)
	require.Equal(t, 3, rel.Number)
	require.Equal(t, release.StatusDeployed, rel.Status)
	require.Equal(t, "Rollback to 1", rel.Description)
	require.Contains(t, rel.Manifest, `value: "hi"`)

	history, err := client.History(ctx, ns, "wild")
	require.NoError(t, err)
	var got []string
	for _, r := range history {
		got = append(got, string(r.Status)+" "+r.ChartVersion+" "+r.AppVersion)
	}
	require.Equal(t, []string{"superseded 0.3.0 v1.2.3", "superseded 0.3.0 v1.2.3", "deployed 0.3.0 v1.2.3"}, got)
	require.Equal(t, []int{1, 2, 3}, []int{history[0].Number, history[1].Number, history[2].Number})

	_, err = client.Uninstall(ctx, release.UninstallOptions{Namespace: ns, Owner: owner, Name: "wild", Wait: true})
	require.NoError(t, err)
	_, err = client.History(ctx, ns, "wild")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "%v", err)
	_, err = client.Uninstall(ctx, release.UninstallOptions{Namespace: ns, Owner: owner, Name: "wild", IgnoreNotFound: true})
	require.NoError(t, err)

	install(t, client, "again") // the name is free again
}

func TestDryRunsStoreNothing(t *testing.T) {
	t.Parallel()
	client := releasetest.New(t).Client
	ctx := context.Background()

	dry, err := client.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), DryRun: true})
	require.NoError(t, err)
	require.Contains(t, dry.Manifest, "kind: Deployment")
	require.Equal(t, "Dry run complete", dry.Description)
	_, err = client.History(ctx, ns, "wild")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "%v", err)

	install(t, client, "hi")
	dry, err = client.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Values: map[string]any{"greeting": "bye"}, DryRun: true})
	require.NoError(t, err)
	require.Equal(t, 2, dry.Number)
	require.Contains(t, dry.Manifest, `value: "bye"`)
	require.Equal(t, "wild says bye from version v1.2.3.\n", dry.Notes)
	history, err := client.History(ctx, ns, "wild")
	require.NoError(t, err)
	require.Len(t, history, 1)
}

func TestOperationErrorsHaveCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(c *release.Client) error
		code string
		msg  string
	}{
		{"upgrade of a missing release", func(c *release.Client) error {
			_, err := c.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Owner: owner, Name: "nope", Chart: wildChart(t)})
			return err
		}, styrmin.ENOTFOUND, "There is no release nope in namespace apps."},
		{"status of a missing release", func(c *release.Client) error {
			_, err := c.Status(ctx, ns, "nope")
			return err
		}, styrmin.ENOTFOUND, "There is no release nope in namespace apps."},
		{"values of a missing revision", func(c *release.Client) error {
			_, err := c.GetValues(ctx, ns, "wild", 7)
			return err
		}, styrmin.ENOTFOUND, "There is no release wild in namespace apps."},
		{"second install", func(c *release.Client) error {
			_, err := c.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t)})
			return err
		}, styrmin.ECONFLICT, "Release wild already exists in namespace apps."},
		{"no namespace", func(c *release.Client) error {
			_, err := c.Status(ctx, "", "wild")
			return err
		}, styrmin.EINVALID, "A release needs a namespace."},
		{"rollback to a missing revision", func(c *release.Client) error {
			_, err := c.Rollback(ctx, release.RollbackOptions{Namespace: ns, Owner: owner, Name: "wild", Revision: 9})
			return err
		}, styrmin.EINTERNAL, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := releasetest.New(t).Client
			install(t, client, "hi")
			err := tt.run(client)
			require.Error(t, err)
			require.Equal(t, tt.code, styrmin.ErrorCode(err), "%v", err)
			if tt.msg != "" {
				require.Equal(t, tt.msg, styrmin.ErrorMessage(err))
			}
		})
	}
}

func TestFailedOperationsAreRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kc := &kubefake.FailingKubeClient{PrintingKubeClient: kubefake.PrintingKubeClient{Out: io.Discard}}
	cluster := releasetest.NewWithKube(t, kc)
	install(t, cluster.Client, "hi")

	kc.WaitError = errors.New("timed out waiting for the condition")
	_, err := cluster.Client.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Wait: true})
	require.ErrorContains(t, err, "release: upgrade wild: timed out waiting for the condition")
	_, err = cluster.Client.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "other", Chart: wildChart(t), Wait: true})
	require.ErrorContains(t, err, "release: install other: timed out waiting for the condition")

	history, err := cluster.Client.History(ctx, ns, "wild")
	require.NoError(t, err)
	require.Len(t, history, 2)
	require.Equal(t, release.StatusDeployed, history[0].Status, "a failed upgrade leaves the deployed revision deployed")
	require.Equal(t, release.StatusFailed, history[1].Status)
	require.Equal(t, `Upgrade "wild" failed: timed out waiting for the condition`, history[1].Description)
	other, err := cluster.Client.Status(ctx, ns, "other")
	require.NoError(t, err)
	require.Equal(t, release.StatusFailed, other.Status)

	kc.WaitError = nil
	rel, err := cluster.Client.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "other", Chart: wildChart(t)})
	require.NoError(t, err, "an install replaces a failed one")
	require.Equal(t, release.StatusDeployed, rel.Status)
}
