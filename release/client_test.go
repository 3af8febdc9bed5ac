package release_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	helmrelease "helm.sh/helm/v3/pkg/release"
	"k8s.io/client-go/rest"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/release"
)

func TestUnreachableClusterIsUnavailable(t *testing.T) {
	t.Parallel()
	client, err := release.New(&rest.Config{Host: "https://127.0.0.1:1"}, release.Options{}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	_, err = client.History(ctx, "apps", "wild")
	require.Equal(t, styrmin.EUNAVAILABLE, styrmin.ErrorCode(err), "%v", err)
	require.Equal(t, "The Kubernetes cluster does not answer.", styrmin.ErrorMessage(err))
	require.ErrorContains(t, err, "connection refused")
}

func TestStatusesAreHelms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ours    release.Status
		helms   helmrelease.Status
		pending bool
	}{
		{release.StatusUnknown, helmrelease.StatusUnknown, false},
		{release.StatusDeployed, helmrelease.StatusDeployed, false},
		{release.StatusUninstalled, helmrelease.StatusUninstalled, false},
		{release.StatusSuperseded, helmrelease.StatusSuperseded, false},
		{release.StatusFailed, helmrelease.StatusFailed, false},
		{release.StatusUninstalling, helmrelease.StatusUninstalling, false},
		{release.StatusPendingInstall, helmrelease.StatusPendingInstall, true},
		{release.StatusPendingUpgrade, helmrelease.StatusPendingUpgrade, true},
		{release.StatusPendingRollback, helmrelease.StatusPendingRollback, true},
	}
	for _, tt := range tests {
		require.Equal(t, string(tt.helms), string(tt.ours))
		require.Equal(t, tt.pending, tt.ours.Pending(), tt.ours)
	}
}
