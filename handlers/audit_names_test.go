package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// sameChange lists, for each change that more than one adapter makes, the
// lines of the permission table (pages, REST API, action primitives) that
// make it.
var sameChange = [][]string{
	{"POST /users", "POST /api/v1/users"},
	{"POST /users/:id/role", "POST /users/:id/disable", "POST /users/:id/enable", "POST /users/:id/password", "PATCH /api/v1/users/:id"},
	{"POST /account/tokens", "POST /api/v1/tokens"},
	{"POST /account/tokens/:id/revoke", "DELETE /api/v1/tokens/:id"},
	{"POST /drivers/upload", "POST /api/v1/drivers"},
	{"POST /drivers/:name/:version/permissions/approve", "POST /api/v1/drivers/:name/versions/:version/permissions/approve"},
	{"POST /drivers/:name/deploy", "POST /api/v1/deployments"},
	{"POST /deployments/:name/upgrade", "POST /api/v1/deployments/:name/upgrade", "POST /api/action/v1/tasks/upgrade"},
	{"POST /deployments/:name/rollback", "POST /api/v1/deployments/:name/rollback"},
	{"POST /deployments/:name/stop", "POST /api/v1/deployments/:name/stop", "POST /api/action/v1/tasks/stop"},
	{"POST /deployments/:name/start", "POST /api/v1/deployments/:name/start", "POST /api/action/v1/tasks/start"},
	{"POST /deployments/:name/actions/:action", "POST /api/v1/deployments/:name/actions/:action"},
	{"POST /deployments/:name/delete", "DELETE /api/v1/deployments/:name"},
	{"POST /deployments/:name/schedules", "POST /api/v1/deployments/:name/schedules"},
	{"POST /deployments/:name/schedules/:id/pause", "POST /api/v1/deployments/:name/schedules/:id/pause"},
	{"POST /deployments/:name/schedules/:id/resume", "POST /api/v1/deployments/:name/schedules/:id/resume"},
	{"POST /deployments/:name/schedules/:id/delete", "DELETE /api/v1/deployments/:name/schedules/:id"},
	{"POST /deployments/:name/schedules/:id/edit", "PATCH /api/v1/deployments/:name/schedules/:id"},
	{"POST /deployments/:name/tasks/:id/cancel", "POST /api/v1/tasks/:id/cancel"},
	{"POST /namespaces", "PUT /api/v1/namespace-policy"},
	{"POST /webhooks", "POST /api/v1/webhooks"},
	{"POST /webhooks/:id", "PATCH /api/v1/webhooks/:id"},
	{"POST /webhooks/:id/delete", "DELETE /api/v1/webhooks/:id"},
	{"POST /webhooks/:id/deliveries/:delivery/redeliver", "POST /api/v1/webhooks/:id/deliveries/:delivery/redeliver"},
}

// TestOneChangeHasOneAuditActionWhicheverAdapterMakesIt: the lines of the
// permission table that make the same change name the same audit action, one
// of audit.Actions (TestEveryStateChangeLeavesOneAuditEntry checks that each
// line's requests are recorded under its action).
func TestOneChangeHasOneAuditActionWhicheverAdapterMakesIt(t *testing.T) {
	t.Parallel()
	actionOf := map[string]string{}
	for _, r := range handlers.Table(handlers.Deps{}) {
		actionOf[r.Method+" "+r.Path] = r.Change
	}
	for _, lines := range sameChange {
		want := actionOf[lines[0]]
		require.Contains(t, audit.Actions(), want, "%s names an action of audit.Actions", lines[0])
		for _, line := range lines[1:] {
			require.Equal(t, want, actionOf[line], "%s makes the change %s makes", line, lines[0])
		}
	}
}

// TestThePagesAndTheAPIRecordAUsersNewRoleAlike changes a user's role on the
// users page and through the API: both entries say user.update with the new
// role in their detail.
func TestThePagesAndTheAPIRecordAUsersNewRoleAlike(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	root, _ := a.As(t, "root", auth.Admin)
	token := a.TokenFor(t, "root-script", auth.Admin)
	_, olga := a.As(t, "olga", auth.ReadOnly)
	id := strconv.FormatInt(olga.ID, 10)

	newest := newestID(t, a.Audit)
	a.Request(root, http.MethodPost, "/users/"+id+"/role", url.Values{"role": {"operator"}})
	a.Call(t, token, http.MethodPatch, fmt.Sprintf("/api/v1/users/%d", olga.ID), map[string]any{"role": "admin"})

	entries := entriesSince(t, a.Audit, newest)
	require.Len(t, entries, 2)
	for i, role := range []string{"operator", "admin"} {
		e := entries[i]
		require.Equal(t, audit.ActionUserUpdate, e.Action)
		require.Equal(t, audit.Target{Kind: audit.TargetUser, Name: id}, e.Target)
		require.Equal(t, audit.Allowed, e.Outcome, e.Reason)
		require.Equal(t, role, e.Detail["role"], "the detail names the new role")
	}
}
