package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
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

func TestOnlyAnAdminApprovesADriversPermissions(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	ctx := context.Background()
	_, err := a.Catalog.ImportFS(ctx, granter, "granter", "root")
	require.NoError(t, err)
	const approve = "/drivers/granter/1.0.0/permissions/approve"

	for _, role := range []auth.Role{auth.ReadOnly, auth.Operator} {
		v, _ := a.As(t, role.String(), role)
		doc := handlerstest.Parse(t, a.Request(v, http.MethodGet, "/drivers/granter", nil))
		require.Len(t, doc.Find(`[data-testid="permission-item"]`).Nodes, 2, "%s sees the permissions", role)
		require.Empty(t, doc.Find(`[data-testid="permissions-approve"]`).Nodes, "%s sees no Approve button", role)

		rec := a.Request(v, http.MethodPost, approve, url.Values{})

		require.Equal(t, http.StatusForbidden, rec.Code, "a crafted request of a %s user", role)
	}
	p, err := a.Catalog.Permissions(ctx, "granter", "1.0.0")
	require.NoError(t, err)
	require.Nil(t, p.Approval, "nothing is approved")

	admin, _ := a.As(t, "boss", auth.Admin)
	doc := handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/drivers/granter", nil))
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="driver-permissions"]`)), "not approved binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default")
	require.Len(t, doc.Find(`[data-testid="permissions-approve"]`).Nodes, 1)

	rec := a.Request(admin, http.MethodPost, approve, url.Values{})
	require.Equal(t, []string{"The permissions of granter 1.0.0 are approved; installs of this version may create them."}, a.Flashes(t, admin, rec), rec.Body.String())

	doc = handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/drivers/granter", nil))
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="permissions-approved"]`)), "Approved by boss on ")
	require.Empty(t, doc.Find(`[data-testid="permissions-approve"]`).Nodes, "nothing is left to approve")
	require.NotContains(t, handlerstest.Text(doc.Find(`[data-testid="driver-permissions"]`)), "not approved")
}
