package release_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	helmrelease "helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
)

// leavePending records the next revision of release "wild" as a killed process
// leaves it: stored with a pending status, never finished.
func leavePending(t *testing.T, cluster *releasetest.Cluster, status helmrelease.Status) int {
	t.Helper()
	store := cluster.Storage(ns)
	last, err := store.Last("wild")
	version := 1
	if err == nil {
		version = last.Version + 1
	}
	rel := &helmrelease.Release{
		Name: "wild", Namespace: ns, Version: version, Chart: wildChart(t), Labels: ownerLabels,
		Manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: half-done\n",
		Info:     &helmrelease.Info{Status: status, Description: "underway", LastDeployed: helmtime.Now()},
	}
	require.NoError(t, store.Create(rel))
	return version
}

func TestRecoverPending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		installed bool               // revision 1 deployed before
		pending   helmrelease.Status // "" leaves nothing pending
		want      release.Recovery
		history   []release.Status
	}{
		{
			name:    "pending install is marked failed",
			pending: helmrelease.StatusPendingInstall,
			want: release.Recovery{Action: release.RecoveryMarkedFailed, Revision: 1, Was: release.StatusPendingInstall,
				Message: "Revision 1 of release wild was pending-install; marked it failed."},
			history: []release.Status{release.StatusFailed},
		},
		{
			name: "pending upgrade is rolled back", installed: true, pending: helmrelease.StatusPendingUpgrade,
			want: release.Recovery{Action: release.RecoveryRolledBack, Revision: 2, Was: release.StatusPendingUpgrade, RolledBackTo: 1,
				Message: "Revision 2 of release wild was pending-upgrade; marked it failed and rolled back to revision 1."},
			history: []release.Status{release.StatusSuperseded, release.StatusFailed, release.StatusDeployed},
		},
		{
			name: "pending rollback is rolled back", installed: true, pending: helmrelease.StatusPendingRollback,
			want: release.Recovery{Action: release.RecoveryRolledBack, Revision: 2, Was: release.StatusPendingRollback, RolledBackTo: 1,
				Message: "Revision 2 of release wild was pending-rollback; marked it failed and rolled back to revision 1."},
			history: []release.Status{release.StatusSuperseded, release.StatusFailed, release.StatusDeployed},
		},
		{
			name: "pending upgrade without a deployed revision is marked failed", pending: helmrelease.StatusPendingUpgrade,
			want: release.Recovery{Action: release.RecoveryMarkedFailed, Revision: 1, Was: release.StatusPendingUpgrade,
				Message: "Revision 1 of release wild was pending-upgrade; marked it failed (no deployed revision to roll back to)."},
			history: []release.Status{release.StatusFailed},
		},
		{
			name: "deployed release is left alone", installed: true,
			want: release.Recovery{Action: release.RecoveryNone, Was: release.StatusDeployed,
				Message: "Release wild is deployed at revision 1: nothing to recover."},
			history: []release.Status{release.StatusDeployed},
		},
		{
			name: "missing release is left alone",
			want: release.Recovery{Action: release.RecoveryNone, Message: "Release wild has no revision to recover."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cluster := releasetest.New(t)
			ctx := context.Background()
			if tt.installed {
				install(t, cluster.Client, "hi")
			}
			if tt.pending != "" {
				leavePending(t, cluster, tt.pending)
			}

			got, err := cluster.Client.RecoverPending(ctx, ns, "wild", owner)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)

			history, err := cluster.Client.History(ctx, ns, "wild")
			if tt.history == nil {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			var statuses []release.Status
			for _, r := range history {
				statuses = append(statuses, r.Status)
			}
			require.Equal(t, tt.history, statuses)
		})
	}
}

func TestAfterRecoveryTheNextOperationRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("upgrade after a killed upgrade", func(t *testing.T) {
		t.Parallel()
		cluster := releasetest.New(t)
		install(t, cluster.Client, "hi")
		leavePending(t, cluster, helmrelease.StatusPendingUpgrade)
		upgrade := release.UpgradeOptions{Namespace: ns, Owner: owner, Name: "wild", Chart: wildChart(t), Values: map[string]any{"greeting": "bye"}}
		_, err := cluster.Client.Upgrade(ctx, upgrade)
		require.ErrorContains(t, err, "has an operation in progress")

		_, err = cluster.Client.RecoverPending(ctx, ns, "wild", owner)
		require.NoError(t, err)
		rel, err := cluster.Client.Upgrade(ctx, upgrade)
		require.NoError(t, err)
		require.Equal(t, 4, rel.Number)
		require.Equal(t, release.StatusDeployed, rel.Status)
	})

	t.Run("install after a killed install", func(t *testing.T) {
		t.Parallel()
		cluster := releasetest.New(t)
		leavePending(t, cluster, helmrelease.StatusPendingInstall)
		_, err := cluster.Client.RecoverPending(ctx, ns, "wild", owner)
		require.NoError(t, err)
		rel := install(t, cluster.Client, "hi")
		require.Equal(t, release.StatusDeployed, rel.Status)
	})
}
