package release_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
)

// installWithHelm installs the wild chart as release "wild" with Helm's SDK,
// as `helm install` or another tool would: without Styrmin's marks, or with
// labels copied from some owner.
func installWithHelm(t *testing.T, cluster *releasetest.Cluster, labels map[string]string) {
	t.Helper()
	install := action.NewInstall(cluster.Helm(ns))
	install.Namespace, install.ReleaseName, install.Labels = ns, "wild", labels
	_, err := install.Run(wildChart(t), map[string]any{"greeting": "not styrmin's"})
	require.NoError(t, err)
}

func TestReleasesCarryTheMarksOfTheirOwner(t *testing.T) {
	t.Parallel()
	cluster := releasetest.New(t)
	ctx := context.Background()
	install(t, cluster.Client, "hi")
	_, err := cluster.Client.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Name: "wild", Chart: wildChart(t), Owner: owner})
	require.NoError(t, err)
	_, err = cluster.Client.Rollback(ctx, release.RollbackOptions{Namespace: ns, Name: "wild", Revision: 1, Owner: owner})
	require.NoError(t, err)

	history, err := cluster.Storage(ns).History("wild")
	require.NoError(t, err)
	require.Len(t, history, 3)
	for _, r := range history {
		require.Equal(t, ownerLabels, r.Labels, "revision %d", r.Version)
	}
	require.NoError(t, cluster.Client.CheckOwner(ctx, ns, "wild", owner))
}

func TestAReleaseStyrminDidNotCreateIsLeftAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	refusals := []struct {
		name string
		run  func(c *release.Client, owner release.Owner) error
	}{
		{"install", func(c *release.Client, owner release.Owner) error {
			_, err := c.Install(ctx, release.InstallOptions{Namespace: ns, Name: "wild", Chart: wildChart(t), Owner: owner})
			return err
		}},
		{"dry-run install", func(c *release.Client, owner release.Owner) error {
			_, err := c.Install(ctx, release.InstallOptions{Namespace: ns, Name: "wild", Chart: wildChart(t), Owner: owner, DryRun: true})
			return err
		}},
		{"upgrade", func(c *release.Client, owner release.Owner) error {
			_, err := c.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Name: "wild", Chart: wildChart(t), Owner: owner})
			return err
		}},
		{"rollback", func(c *release.Client, owner release.Owner) error {
			_, err := c.Rollback(ctx, release.RollbackOptions{Namespace: ns, Name: "wild", Owner: owner})
			return err
		}},
		{"uninstall", func(c *release.Client, owner release.Owner) error {
			_, err := c.Uninstall(ctx, release.UninstallOptions{Namespace: ns, Name: "wild", IgnoreNotFound: true, Owner: owner})
			return err
		}},
		{"crash recovery", func(c *release.Client, owner release.Owner) error {
			_, err := c.RecoverPending(ctx, ns, "wild", owner)
			return err
		}},
		{"a change without Helm", func(c *release.Client, owner release.Owner) error {
			return c.CheckOwner(ctx, ns, "wild", owner)
		}},
	}
	strangers := []struct {
		name   string
		labels map[string]string
	}{
		{"installed with helm", nil},
		{"another deployment of this Styrmin", map[string]string{release.InstallationLabel: owner.Installation, release.DeploymentLabel: "8"}},
		{"the same deployment id of another Styrmin", map[string]string{release.InstallationLabel: "another-installation", release.DeploymentLabel: "7"}},
	}
	for _, stranger := range strangers {
		for _, op := range refusals {
			t.Run(stranger.name+"/"+op.name, func(t *testing.T) {
				t.Parallel()
				cluster := releasetest.New(t)
				installWithHelm(t, cluster, stranger.labels)
				before, err := cluster.Storage(ns).History("wild")
				require.NoError(t, err)

				err = op.run(cluster.Client, owner)

				require.True(t, release.IsForeign(err), "%v", err)
				require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
				require.Contains(t, styrmin.ErrorMessage(err), "Release wild in namespace apps was not created by Styrmin for this deployment")
				after, err := cluster.Storage(ns).History("wild")
				require.NoError(t, err)
				require.Equal(t, before, after, "the release's history is untouched")
			})
		}
	}
}

func TestAFailedReleaseIsReplacedOnlyByItsOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster := releasetest.New(t)
	installWithHelm(t, cluster, nil)
	last, err := cluster.Storage(ns).Last("wild")
	require.NoError(t, err)
	last.SetStatus("failed", "failed outside Styrmin")
	require.NoError(t, cluster.Storage(ns).Update(last))

	_, err = cluster.Client.Install(ctx, release.InstallOptions{Namespace: ns, Name: "wild", Chart: wildChart(t), Owner: owner})
	require.True(t, release.IsForeign(err), "%v", err)
	require.Equal(t, "Release wild in namespace apps was not created by Styrmin for this deployment, so Styrmin will not install it. Choose another deployment name or namespace.",
		styrmin.ErrorMessage(err))
}

func TestOperationsWithoutAnOwnerAreRefused(t *testing.T) {
	t.Parallel()
	cluster := releasetest.New(t)
	installWithHelm(t, cluster, nil)

	_, err := cluster.Client.Uninstall(context.Background(), release.UninstallOptions{Namespace: ns, Name: "wild"})

	require.ErrorContains(t, err, "names no owner")
	_, err = cluster.Storage(ns).Last("wild")
	require.NoError(t, err, "an owner left out by mistake matches no release, not every unmarked one")
}
