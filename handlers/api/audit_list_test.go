package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// auditPages reads every page of GET /api/v1/audit?query as token, limit entries a page.
func auditPages(t *testing.T, a *handlerstest.App, token string, query url.Values) []oapi.AuditEntry {
	t.Helper()
	var all []oapi.AuditEntry
	query.Set("limit", "2")
	for {
		rec := a.Call(t, token, http.MethodGet, "/api/v1/audit?"+query.Encode(), nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var page oapi.AuditPage
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
		require.LessOrEqual(t, len(page.Items), 2)
		all = append(all, page.Items...)
		if page.NextCursor == "" {
			return all
		}
		query.Set("cursor", page.NextCursor)
	}
}

// TestAPIListsTheAuditLogByRole: an admin pages through every entry, newest
// first; a read-only user sees the entries about deployments only, without
// addresses, whatever the filter asks for.
func TestAPIListsTheAuditLogByRole(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "root", auth.Admin)
	reader := a.TokenFor(t, "reader", auth.ReadOnly)
	for _, e := range []audit.Entry{
		{Actor: audit.Actor{Name: "ada", Via: audit.ViaNone, Address: "192.0.2.9"}, Action: "signin", Target: audit.Target{Kind: audit.TargetUser, Name: "ada"}, Outcome: audit.Refused, Reason: "Unauthorized"},
		{Actor: audit.Actor{Name: "ada", Via: audit.ViaSession, Role: "operator", Address: "192.0.2.9"}, Action: "deployment.install", Target: audit.Target{Kind: audit.TargetDeployment, Name: "shop"}, Outcome: audit.Allowed},
		{Actor: audit.Actor{Name: "root", Via: audit.ViaSession, Role: "admin"}, Action: "user.create", Target: audit.Target{Kind: audit.TargetUser, Name: "carl"}, Outcome: audit.Allowed},
	} {
		require.NoError(t, a.Audit.Record(context.Background(), e))
	}
	actions := func(entries []oapi.AuditEntry) []string {
		var out []string
		for _, e := range entries {
			out = append(out, e.Action)
		}
		return out
	}
	all := auditPages(t, a, admin, url.Values{})
	require.Equal(t, []string{"user.create", "deployment.install", "signin"}, actions(all))
	require.Equal(t, oapi.AuditEntryOutcome("refused"), all[2].Outcome)
	require.Equal(t, "192.0.2.9", all[2].Actor.Address)
	require.Equal(t, []string{"signin"}, actions(auditPages(t, a, admin, url.Values{"actor": {"ada"}, "action": {"signin"}})))

	for _, q := range []url.Values{{}, {"action": {"signin"}}, {"target_kind": {"user"}}} {
		seen := auditPages(t, a, reader, q)
		for _, e := range seen {
			require.Equal(t, "deployment", e.Target.Kind, "a read-only user sees %s", e.Action)
			require.Empty(t, e.Actor.Address)
		}
	}
	require.Equal(t, []string{"deployment.install"}, actions(auditPages(t, a, reader, url.Values{})))

	rec := a.Call(t, admin, http.MethodGet, "/api/v1/audit?action=%25", nil)
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
}

// TestAPIAuditEntriesNameTheToken: a change made with an API token is
// recorded with the token's id (never its secret) beside its user, and the
// outcome filter keeps the entries that ended so.
func TestAPIAuditEntriesNameTheToken(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, root := a.As(t, "root", auth.Admin)
	token, err := a.Deps.APITokens.Create(context.Background(), auth.Credential{User: root}, "auditor", nil)
	require.NoError(t, err)
	rec := a.Call(t, token.Secret, http.MethodPost, "/api/v1/tokens", map[string]any{"name": ""})
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	rec = a.Call(t, token.Secret, http.MethodPost, "/api/v1/tokens", map[string]any{"name": "second"})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

	refused := auditPages(t, a, token.Secret, url.Values{"action": {"token.create"}, "outcome": {"refused"}})
	require.Len(t, refused, 1)
	require.NotNil(t, refused[0].Actor.TokenId)
	require.Equal(t, token.ID, *refused[0].Actor.TokenId)
	require.Equal(t, root.ID, *refused[0].Actor.UserId)
	allowed := auditPages(t, a, token.Secret, url.Values{"action": {"token.create"}, "outcome": {"allowed"}})
	require.Len(t, allowed, 1)
	require.Equal(t, token.ID, *allowed[0].Actor.TokenId)
	raw := a.Call(t, token.Secret, http.MethodGet, "/api/v1/audit", nil).Body.String()
	require.NotContains(t, raw, token.Secret, "no entry holds the token's secret")

	rec = a.Call(t, token.Secret, http.MethodGet, "/api/v1/audit?outcome=maybe", nil)
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
}
