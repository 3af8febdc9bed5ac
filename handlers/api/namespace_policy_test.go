package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestAPIReadsAndSetsTheNamespacePolicy(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "root", auth.Admin)
	reader := a.TokenFor(t, "reader", auth.ReadOnly)

	rec := a.Call(t, admin, http.MethodPut, "/api/v1/namespace-policy", oapi.NamespacePolicyChange{Allowed: []string{"team-*", "default"}, CreateNamespaces: false})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	rec = a.Call(t, reader, http.MethodGet, "/api/v1/namespace-policy", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	var policy oapi.NamespacePolicy
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &policy))
	require.Equal(t, []string{"team-*", "default"}, policy.Allowed)
	require.False(t, policy.CreateNamespaces)
	require.Equal(t, []string{"kube-*", "default"}, policy.Reserved)
	require.Equal(t, "root", policy.UpdatedBy)
}

func TestAPIRefusesANamespacePolicyChangeByAnyoneButAnAdmin(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	for _, role := range []auth.Role{auth.ReadOnly, auth.Operator} {
		token := a.TokenFor(t, role.String(), role)

		rec := a.Call(t, token, http.MethodPut, "/api/v1/namespace-policy", oapi.NamespacePolicyChange{Allowed: []string{"*", "kube-system"}, CreateNamespaces: true})

		require.Equal(t, http.StatusForbidden, rec.Code, "a %s token", role)
	}
	rec := a.Call(t, a.TokenFor(t, "root", auth.Admin), http.MethodGet, "/api/v1/namespace-policy", nil)
	var policy oapi.NamespacePolicy
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &policy))
	require.Equal(t, []string{"*"}, policy.Allowed, "the policy is unchanged")
}

func TestAPIRefusesABadNamespacePatternAsAProblem(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)

	rec := a.Call(t, a.TokenFor(t, "root", auth.Admin), http.MethodPut, "/api/v1/namespace-policy", oapi.NamespacePolicyChange{Allowed: []string{"Team B"}})

	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, rec.Body.String(), `These patterns are not namespace patterns: \"Team B\".`)
}
