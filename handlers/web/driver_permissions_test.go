package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestOnlyAnAdminApprovesADriversPermissions(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	ctx := context.Background()
	_, err := a.Catalog.ImportFS(ctx, handlerstest.Granter, "granter", "root")
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
