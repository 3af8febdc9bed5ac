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

func TestAnAdminSetsTheNamespacePolicyOnItsPage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)

	rec := a.Request(admin, http.MethodPost, "/namespaces", url.Values{"allowed": {"team-*\r\nlab\n"}, "create_namespaces": {"true"}})

	require.Equal(t, []string{"The namespace policy is saved; it applies to installs from now on."}, a.Flashes(t, admin, rec))
	policy, err := a.Deployments.NamespacePolicy(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"team-*", "lab"}, policy.Allowed)
	require.True(t, policy.CreateNamespaces)
	require.Equal(t, "root", policy.UpdatedBy)
	doc := handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/namespaces", nil))
	require.Equal(t, "team-*\nlab", doc.Find(`[data-testid="allowed"]`).Text())
	require.Equal(t, "Namespaces", handlerstest.Text(doc.Find(`nav [aria-current="page"]`)))
}

func TestTheNamespacePolicyPageShowsARefusedPatternWithWhatWasTyped(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)

	rec := a.Request(admin, http.MethodPost, "/namespaces", url.Values{"allowed": {"team-*\nTeam B"}})

	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="form-error"]`)), `These patterns are not namespace patterns: "Team B".`)
	require.Equal(t, "team-*\nTeam B", doc.Find(`[data-testid="allowed"]`).Text())
}

func TestOnlyAnAdminChangesTheNamespacePolicy(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	for _, role := range []auth.Role{auth.ReadOnly, auth.Operator} {
		v, _ := a.As(t, role.String(), role)
		doc := handlerstest.Parse(t, a.Request(v, http.MethodGet, "/namespaces", nil))
		require.Empty(t, doc.Find(`[data-testid="save-policy"]`).Nodes, "%s sees the policy, without a Save button", role)

		rec := a.Request(v, http.MethodPost, "/namespaces", url.Values{"allowed": {"*\nkube-system"}, "create_namespaces": {"true"}})

		require.Equal(t, http.StatusForbidden, rec.Code, "a crafted request of a %s user", role)
	}
	policy, err := a.Deployments.NamespacePolicy(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"*"}, policy.Allowed, "the policy is unchanged")
}
