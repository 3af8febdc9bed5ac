package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestAPIShowsADriverVersionsPermissionsAndOnlyAnAdminApprovesThem(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, err := a.Catalog.ImportFS(context.Background(), handlerstest.Granter, "granter", "root")
	require.NoError(t, err)
	const approve = "/api/v1/drivers/granter/versions/1.0.0/permissions/approve"
	for _, role := range []auth.Role{auth.ReadOnly, auth.Operator} {
		rec := a.Call(t, a.TokenFor(t, role.String(), role), http.MethodPost, approve, nil)
		require.Equal(t, http.StatusForbidden, rec.Code, "a %s token", role)
	}
	admin := a.TokenFor(t, "root", auth.Admin)
	rec := a.Call(t, admin, http.MethodGet, "/api/v1/drivers/granter/versions/1.0.0", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var v oapi.DriverVersion
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	require.Equal(t, []oapi.DriverPermissionItem{
		{Text: "creates ClusterRoleBinding (rbac.authorization.k8s.io)"},
		{Text: "binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default"},
	}, v.Permissions.Items, "nothing approved after the refused requests")

	rec = a.Call(t, admin, http.MethodPost, approve, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var p oapi.DriverPermissions
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	require.Equal(t, "root", *p.ApprovedBy)
	for _, it := range p.Items {
		require.True(t, it.Approved, it.Text)
	}
}

// TestAPIApprovesTheItemsItIsGiven: an admin approves items beyond the
// default values' (a PermissionSet), objects in other namespaces and pod
// security needs among them; they are shown as beyond_defaults and the
// defaults stay not approved; items that name nothing are refused.
func TestAPIApprovesTheItemsItIsGiven(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, err := a.Catalog.ImportFS(context.Background(), handlerstest.Granter, "granter", "root")
	require.NoError(t, err)
	const approve = "/api/v1/drivers/granter/versions/1.0.0/permissions/approve"
	admin := a.TokenFor(t, "root", auth.Admin)
	items := map[string]any{"items": map[string]any{
		"rules":        []any{map[string]any{"role": "ClusterRole", "resource": "nodes", "verb": "list"}},
		"outside":      []any{map[string]any{"kind": "ConfigMap", "namespace": "kube-system"}},
		"pod_security": []any{"host network"},
	}}

	rec := a.Call(t, a.TokenFor(t, "olga", auth.Operator), http.MethodPost, approve, items)
	require.Equal(t, http.StatusForbidden, rec.Code)
	rec = a.Call(t, admin, http.MethodPost, approve, items)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var p oapi.DriverPermissions
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	beyond := true
	require.Equal(t, []oapi.DriverPermissionItem{
		{Text: "creates ClusterRoleBinding (rbac.authorization.k8s.io)"},
		{Text: "binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default"},
		{Text: "grants ClusterRole: list nodes (core)", Approved: true, BeyondDefaults: &beyond},
		{Text: "creates ConfigMap (core) in namespace kube-system", Approved: true, BeyondDefaults: &beyond},
		{Text: "runs pods beyond Pod Security's baseline: host network", Approved: true, BeyondDefaults: &beyond},
	}, p.Items)
	require.Len(t, *p.Approved.Rules, 1)
	require.Equal(t, []string{"host network"}, *p.Approved.PodSecurity)
	require.Equal(t, "kube-system", (*p.Approved.Outside)[0].Namespace)
	require.Len(t, *p.Needs.Bindings, 1)

	for _, bad := range []map[string]any{
		{"items": map[string]any{}},
		{"items": map[string]any{"rules": []any{map[string]any{"role": "Robot", "resource": "x", "verb": "y"}}}},
		{"items": map[string]any{"secrets": []any{}}},
		{"items": map[string]any{"pod_security": []any{"root"}}},
		{"items": map[string]any{"outside": []any{map[string]any{"kind": "ConfigMap", "namespace": ""}}}},
	} {
		rec = a.Call(t, admin, http.MethodPost, approve, bad)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%v: %s", bad, rec.Body.String())
	}
}
