package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/sso"
)

// entriesSince returns the audit entries recorded after the entry with id
// after, oldest first.
func entriesSince(t *testing.T, log *audit.Store, after int64) []audit.Entry {
	t.Helper()
	var out []audit.Entry
	require.NoError(t, log.Each(context.Background(), audit.Viewer{Admin: true}, audit.Filter{}, func(e audit.Entry) error {
		if e.ID > after {
			out = append(out, e)
		}
		return nil
	}))
	slices.Reverse(out)
	return out
}

// newestID is the id of the newest audit entry, 0 when there is none.
func newestID(t *testing.T, log *audit.Store) int64 {
	t.Helper()
	page, err := log.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{Limit: 1})
	require.NoError(t, err)
	if len(page.Entries) == 0 {
		return 0
	}
	return page.Entries[0].ID
}

// TestEveryStateChangeLeavesOneAuditEntry walks the permission table: every
// line that changes state (every method but GET: pages, API and action
// primitives alike; and the single sign-on's callback, a GET because the
// provider redirects to it, which signs in) names its audit action, and a request to it by a
// read-only user (a session, or for the API their token) leaves exactly one
// entry with that action, refused where the role or the credential does not
// allow it.
func TestEveryStateChangeLeavesOneAuditEntry(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, u := a.As(t, "reader", auth.ReadOnly)
	token, err := a.Deps.APITokens.Create(context.Background(), auth.Credential{User: u}, "walker", nil)
	require.NoError(t, err)
	table := handlers.Table(a.Deps)
	// Signing out ends the reader's session, so it is walked last.
	slices.SortStableFunc(table, func(x, y handlers.TableRoute) int {
		return boolInt(x.Path == "/signout") - boolInt(y.Path == "/signout")
	})
	walked := 0
	for _, line := range table {
		key := line.Method + " " + line.Path
		if line.Method == http.MethodGet && line.Path != sso.CallbackPath {
			require.Empty(t, line.Change, "%s changes nothing: it has no audit action", key)
			continue
		}
		require.NotEmpty(t, line.Change, "%s changes state: its line in routes.go names its audit action", key)
		before := newestID(t, a.Audit)
		target := samplePath(line.Path)
		if line.API {
			a.Call(t, token.Secret, line.Method, target, nil)
		} else {
			a.Request(reader, line.Method, target, url.Values{})
		}
		entries := entriesSince(t, a.Audit, before)
		require.Len(t, entries, 1, "%s as read-only leaves one audit entry", key)
		e := entries[0]
		require.Equal(t, line.Change, e.Action, key)
		if line.ActionToken || !auth.ReadOnly.AtLeast(line.Least) {
			require.Equal(t, audit.Refused, e.Outcome, "%s as read-only", key)
			require.NotEmpty(t, e.Reason, "%s: a refusal says why", key)
		}
		// A password sign-in (the page's, the API's grant) is made by
		// nobody yet: its actor is the username it names.
		passwordSignin := line.Change == audit.ActionSignin && line.Method == http.MethodPost
		if !line.ActionToken && !passwordSignin {
			want := audit.Actor{UserID: u.ID, Name: "reader", Via: audit.ViaSession, Role: auth.ReadOnly.String(), Address: e.Actor.Address}
			if line.API {
				want.Via, want.TokenID = audit.ViaAPIToken, token.ID
			}
			require.Equal(t, want, e.Actor, key)
		}
		walked++
	}
	require.Greater(t, walked, 30, "the walk reached the state-changing routes")
}

// boolInt is 1 for true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestAChangeIsRecordedInItsTransaction: a change the service makes in a
// transaction leaves one allowed entry, written with it; when that
// transaction fails, the change and its allowed entry are both gone and the
// one entry says the request failed.
func TestAChangeIsRecordedInItsTransaction(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	ctx := context.Background()
	admin := a.TokenFor(t, "root", auth.Admin)
	put := func(patterns ...string) []audit.Entry {
		before := newestID(t, a.Audit)
		a.Call(t, admin, http.MethodPut, "/api/v1/namespace-policy", api.NamespacePolicyChange{Allowed: patterns, CreateNamespaces: true})
		return entriesSince(t, a.Audit, before)
	}
	entries := put("team-*")
	require.Len(t, entries, 1)
	require.Equal(t, audit.Allowed, entries[0].Outcome)
	require.Equal(t, audit.Target{Kind: audit.TargetPolicy, Name: "namespaces"}, entries[0].Target)
	require.NotZero(t, entries[0].Actor.TokenID, "the entry names the API token")
	require.Equal(t, audit.Actor{UserID: entries[0].Actor.UserID, TokenID: entries[0].Actor.TokenID, Name: "root", Via: audit.ViaAPIToken, Role: "admin", Address: entries[0].Actor.Address}, entries[0].Actor)

	entries = put("Team B")
	require.Len(t, entries, 1)
	require.Equal(t, audit.Refused, entries[0].Outcome)
	require.Contains(t, entries[0].Reason, "Team B")

	// The database refuses the change itself: its transaction rolls back.
	_, err := a.Pool.Exec(ctx, `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
		CREATE TRIGGER refuse BEFORE UPDATE ON namespace_policy FOR EACH ROW EXECUTE FUNCTION refuse()`)
	require.NoError(t, err)
	entries = put("shop-*")
	require.Len(t, entries, 1, "the failed change leaves one entry, not its allowed one too")
	require.Equal(t, audit.Failed, entries[0].Outcome)
	policy, err := a.Deployments.NamespacePolicy(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"team-*"}, policy.Allowed)
}

// TestARefusedChangeNamesTheDeploymentItAskedFor: a refused install through
// the API (its name in the body, not in the path) and a refused call of an
// action (its deployment known from its token) name their deployment.
func TestARefusedChangeNamesTheDeploymentItAskedFor(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	install := d.Install(t, handlerstest.PgInstall("shop-db"))
	operator := d.TokenFor(t, "oskar", auth.Operator)
	refusal := func(call func()) audit.Entry {
		t.Helper()
		before := newestID(t, d.Audit)
		call()
		entries := entriesSince(t, d.Audit, before)
		require.Len(t, entries, 1)
		require.Equal(t, audit.Refused, entries[0].Outcome, entries[0].Reason)
		return entries[0]
	}

	e := refusal(func() {
		rec := d.Call(t, operator, http.MethodPost, "/api/v1/deployments", map[string]any{"driver": "postgresql", "driver_version": "1.2.0", "name": "orders-db"})
		require.Equal(t, http.StatusBadRequest, rec.Code, "no password: %s", rec.Body.String())
	})
	require.Equal(t, audit.Target{Kind: audit.TargetDeployment, Name: "orders-db"}, e.Target)

	token := d.ActionToken(t, "shop-db", install.TaskID)
	e = refusal(func() {
		status, _ := d.Primitive(t, token, "tasks/stop", `{"prompts": {"backup": {"label": "x"}}}`)
		require.Equal(t, http.StatusBadRequest, status)
	})
	require.Equal(t, "deployment.stop", e.Action)
	require.Equal(t, audit.Target{Kind: audit.TargetDeployment, Name: "shop-db"}, e.Target)
}
