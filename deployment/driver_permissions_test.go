package deployment_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
)

// grantingBundle is a driver "granter" whose chart binds the release's
// ServiceAccount to cluster-admin with a ClusterRoleBinding; extra is more
// of its templates.
func grantingBundle(version, extra string) fstest.MapFS {
	return deploymenttest.ChartDriver("granter", version, "A driver whose chart grants itself cluster-admin.", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "{{ .Release.Name }}-admin"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: default, namespace: "{{ .Release.Namespace }}"}
`+extra)
}

// TestAChartThatAddsAClusterRoleBindingIsRefusedUntilAnAdminApprovesIt
// installs a driver whose chart binds itself to cluster-admin, on Helm's
// memory storage: refused (nothing recorded) until an admin approves that
// driver version, then installed; the approval of 1.0.0 does not let 1.1.0
// add a grant.
func TestAChartThatAddsAClusterRoleBindingIsRefusedUntilAnAdminApprovesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, nil)
	for _, b := range []fstest.MapFS{grantingBundle("1.0.0", ""), grantingBundle("1.1.0", `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "{{ .Release.Name }}-secrets"}
rules: [{apiGroups: [""], resources: [secrets], verbs: [list]}]
`)} {
		_, err := f.Catalog.ImportFS(ctx, b, "granter", "root")
		require.NoError(t, err)
	}
	client := releasetest.New(t).Client
	owner := release.Owner{Installation: "i", Deployment: 1}
	install := func() error {
		b, err := f.Catalog.Bundle(ctx, "granter", "1.0.0")
		require.NoError(t, err)
		check, err := f.Svc.PermissionCheck(ctx, "granter", "1.0.0", "apps")
		require.NoError(t, err)
		_, err = client.Install(ctx, release.InstallOptions{Namespace: "apps", Name: "g", Owner: owner, Chart: b.Chart, Check: check})
		return err
	}

	err := install()
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	msg := styrmin.ErrorMessage(err)
	require.Contains(t, msg, "driver granter 1.0.0")
	require.Contains(t, msg, "creates ClusterRoleBinding (rbac.authorization.k8s.io)")
	require.Contains(t, msg, "binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default")
	_, err = client.History(ctx, "apps", "g")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "nothing was applied")

	_, err = f.Catalog.ApprovePermissions(ctx, "granter", "1.0.0", "root", nil)
	require.NoError(t, err)
	require.NoError(t, install())

	next, err := f.Catalog.Bundle(ctx, "granter", "1.1.0")
	require.NoError(t, err)
	check, err := f.Svc.PermissionCheck(ctx, "granter", "1.1.0", "apps")
	require.NoError(t, err)
	_, err = client.Upgrade(ctx, release.UpgradeOptions{Namespace: "apps", Name: "g", Owner: owner, Chart: next.Chart, Check: check})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	require.Contains(t, styrmin.ErrorMessage(err), "grants ClusterRole: list secrets (core)")
	history, err := client.History(ctx, "apps", "g")
	require.NoError(t, err)
	require.Len(t, history, 1, "the refused upgrade to 1.1.0 changed nothing")
}

// TestValuesThatMakeTheChartCreateMoreAreRefusedUntilAnAdminApprovesTheExtraItems:
// 1.0.0's default values are approved; values that turn on a ClusterRole
// the defaults do not render are refused with exactly that ClusterRole's
// items named as beyond the defaults, until an admin approves those items
// for 1.0.0.
func TestValuesThatMakeTheChartCreateMoreAreRefusedUntilAnAdminApprovesTheExtraItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.Setup(t, nil)
	_, err := f.Catalog.ImportFS(ctx, grantingBundle("1.0.0", `{{- if .Values.readNodes }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "{{ .Release.Name }}-nodes"}
rules: [{apiGroups: [""], resources: [nodes], verbs: [list]}]
{{- end }}
`), "granter", "root")
	require.NoError(t, err)
	_, err = f.Catalog.ApprovePermissions(ctx, "granter", "1.0.0", "root", nil)
	require.NoError(t, err)
	client := releasetest.New(t).Client
	b, err := f.Catalog.Bundle(ctx, "granter", "1.0.0")
	require.NoError(t, err)
	install := func() error {
		check, err := f.Svc.PermissionCheck(ctx, "granter", "1.0.0", "apps")
		require.NoError(t, err)
		_, err = client.Install(ctx, release.InstallOptions{Namespace: "apps", Name: "g", Chart: b.Chart, Check: check,
			Owner: release.Owner{Installation: "i", Deployment: 1}, Values: map[string]any{"readNodes": true}})
		return err
	}

	err = install()
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	var refused *permissions.RefusedError
	require.ErrorAs(t, err, &refused)
	require.Equal(t, []string{"creates ClusterRole (rbac.authorization.k8s.io)", "grants ClusterRole: list nodes (core)"}, refused.Missing.Lines())
	require.Equal(t, refused.Missing, refused.Beyond(), "every missing item is beyond the approved defaults")
	require.Contains(t, styrmin.ErrorMessage(err), "With these values, the chart of driver granter 1.0.0 creates more than with its default values")
	_, err = client.History(ctx, "apps", "g")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "nothing was applied")

	beyond := refused.Beyond()
	_, err = f.Catalog.ApprovePermissions(ctx, "granter", "1.0.0", "root", &beyond)
	require.NoError(t, err)
	require.NoError(t, install())
}
