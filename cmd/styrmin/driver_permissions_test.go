package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/release"
)

// granter is a driver whose chart binds its ServiceAccount to cluster-admin.
var granter = fstest.MapFS{
	"granter/driver.styrmin.yml": {Data: []byte(`apiVersion: styrmin.io/v1
kind: Driver
metadata: {name: granter}
spec:
  version: 1.0.0
  supported_versions: ">=1.0.0"
  info: {title: Granter, description: A driver whose chart grants itself cluster-admin.}
  helm:
    main: {location: ./chart, version: 1.0.0}
`)},
	"granter/chart/Chart.yaml": {Data: []byte("apiVersion: v2\nname: granter\nversion: 1.0.0\nappVersion: 1.0.0\n")},
	"granter/chart/templates/binding.yaml": {Data: []byte(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "{{ .Release.Name }}-admin"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: default, namespace: "{{ .Release.Namespace }}"}
`)},
}

// runDriverPermissions runs `styrmin driver permissions` with args and returns its output.
func runDriverPermissions(t *testing.T, databaseURL string, args ...string) (string, error) {
	t.Helper()
	cmd := newDriverPermissionsCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(append([]string{"--database-url", databaseURL}, args...))
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func TestDriverPermissionsCommandListsAndApproves(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	url := pool.Config().ConnString()
	c := catalog.New(pool, release.ChartFetcher{})
	_, err := c.ImportFS(context.Background(), granter, "granter", "root")
	require.NoError(t, err)

	out, err := runDriverPermissions(t, url, "granter", "1.0.0")
	require.NoError(t, err)
	require.Equal(t, "granter 1.0.0: with its default values, the chart\n"+
		"  NOT APPROVED  creates ClusterRoleBinding (rbac.authorization.k8s.io)\n"+
		"  NOT APPROVED  binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default\n", out)

	out, err = runDriverPermissions(t, url, "granter", "1.0.0", "--approve")
	require.NoError(t, err)
	require.Contains(t, out, "  approved      creates ClusterRoleBinding (rbac.authorization.k8s.io)\n")
	require.Contains(t, out, "last approved by styrmin command (")

	items := filepath.Join(t.TempDir(), "items.json")
	require.NoError(t, os.WriteFile(items, []byte(`{"rules": [{"role": "ClusterRole", "resource": "nodes", "verb": "list"}]}`), 0o644))
	out, err = runDriverPermissions(t, url, "granter", "1.0.0", "--approve", "--items", items)
	require.NoError(t, err)
	require.Contains(t, out, "approved beyond the default values:\n  approved      grants ClusterRole: list nodes (core)\n")

	_, err = runDriverPermissions(t, url, "granter", "1.0.0", "--items", items)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "--items without --approve")
	require.NoError(t, os.WriteFile(items, []byte(`{"secrets": []}`), 0o644))
	_, err = runDriverPermissions(t, url, "granter", "1.0.0", "--approve", "--items", items)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "unknown fields")
	_, err = runDriverPermissions(t, url, "granter", "9.9.9")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}
