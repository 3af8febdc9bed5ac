package deployment_test

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
)

// chartDriver is a local driver, name at version, described as
// description, whose chart (1.0.0) has the one template objects.
func chartDriver(name, version, description, objects string) fstest.MapFS {
	return fstest.MapFS{
		name + "/driver.styrmin.yml": {Data: fmt.Appendf(nil, `apiVersion: styrmin.io/v1
kind: Driver
metadata: {name: %[1]s}
spec:
  version: %[2]s
  supported_versions: ">=1.0.0"
  info: {title: %[1]s, description: %[3]s}
  helm:
    main: {location: ./chart, version: 1.0.0}
`, name, version, description)},
		name + "/chart/Chart.yaml":             {Data: []byte("apiVersion: v2\nname: " + name + "\nversion: 1.0.0\nappVersion: 1.0.0\n")},
		name + "/chart/templates/objects.yaml": {Data: []byte(objects)},
	}
}

// grantingBundle is a driver "granter" whose chart binds the release's
// ServiceAccount to cluster-admin with a ClusterRoleBinding; extra is more
// of its templates.
func grantingBundle(version, extra string) fstest.MapFS {
	return chartDriver("granter", version, "A driver whose chart grants itself cluster-admin.", `apiVersion: rbac.authorization.k8s.io/v1
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
	f := setup(t, nil)
	for _, b := range []fstest.MapFS{grantingBundle("1.0.0", ""), grantingBundle("1.1.0", `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "{{ .Release.Name }}-secrets"}
rules: [{apiGroups: [""], resources: [secrets], verbs: [list]}]
`)} {
		_, err := f.catalog.ImportFS(ctx, b, "granter", "root")
		require.NoError(t, err)
	}
	client := releasetest.New(t).Client
	owner := release.Owner{Installation: "i", Deployment: 1}
	install := func() error {
		b, err := f.catalog.Bundle(ctx, "granter", "1.0.0")
		require.NoError(t, err)
		check, err := f.svc.PermissionCheck(ctx, "granter", "1.0.0", "apps")
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

	_, err = f.catalog.ApprovePermissions(ctx, "granter", "1.0.0", "root", nil)
	require.NoError(t, err)
	require.NoError(t, install())

	next, err := f.catalog.Bundle(ctx, "granter", "1.1.0")
	require.NoError(t, err)
	check, err := f.svc.PermissionCheck(ctx, "granter", "1.1.0", "apps")
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
	f := setup(t, nil)
	_, err := f.catalog.ImportFS(ctx, grantingBundle("1.0.0", `{{- if .Values.readNodes }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "{{ .Release.Name }}-nodes"}
rules: [{apiGroups: [""], resources: [nodes], verbs: [list]}]
{{- end }}
`), "granter", "root")
	require.NoError(t, err)
	_, err = f.catalog.ApprovePermissions(ctx, "granter", "1.0.0", "root", nil)
	require.NoError(t, err)
	client := releasetest.New(t).Client
	b, err := f.catalog.Bundle(ctx, "granter", "1.0.0")
	require.NoError(t, err)
	install := func() error {
		check, err := f.svc.PermissionCheck(ctx, "granter", "1.0.0", "apps")
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
	_, err = f.catalog.ApprovePermissions(ctx, "granter", "1.0.0", "root", &beyond)
	require.NoError(t, err)
	require.NoError(t, install())
}
