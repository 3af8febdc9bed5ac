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
