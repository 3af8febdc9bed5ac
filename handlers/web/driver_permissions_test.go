package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/permissions"
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

// TestTheDeployFormSaysWhatTheVersionMayCreateAndWhoMustApproveIt: before
// an approval, an operator's deploy form lists the version's permissions as
// not approved, disables Deploy and says an admin must approve them on the
// driver's page; an admin's form links there. After the approval the form
// shows them approved and Deploy is enabled.
func TestTheDeployFormSaysWhatTheVersionMayCreateAndWhoMustApproveIt(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	ctx := context.Background()
	_, err := a.Catalog.ImportFS(ctx, handlerstest.Granter, "granter", "root")
	require.NoError(t, err)
	operator, _ := a.As(t, "olga", auth.Operator)
	admin, _ := a.As(t, "boss", auth.Admin)

	doc := handlerstest.Parse(t, a.Request(operator, http.MethodGet, "/drivers/granter/deploy", nil))
	perms := doc.Find(`[data-testid="deploy-permissions"]`)
	require.Contains(t, handlerstest.Text(perms), "not approved binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default")
	require.Contains(t, handlerstest.Text(perms.Find(`[data-testid="permissions-pending"]`)),
		"An admin must approve these permissions for driver version 1.0.0 before it can be deployed: ask an admin to approve them on the driver's page")
	require.Equal(t, "/drivers/granter?version=1.0.0#driver-permissions", perms.Find(`[data-testid="permissions-pending"] a`).AttrOr("href", ""))
	_, disabled := doc.Find(`[data-testid="install-submit"]`).Attr("disabled")
	require.True(t, disabled, "an operator cannot submit an unapproved version")
	require.Empty(t, doc.Find(`[data-testid="permissions-approve-link"]`).Nodes)

	doc = handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/drivers/granter/deploy", nil))
	require.Equal(t, "/drivers/granter?version=1.0.0#driver-permissions", doc.Find(`[data-testid="permissions-approve-link"]`).AttrOr("href", ""))

	_, err = a.Catalog.ApprovePermissions(ctx, "granter", "1.0.0", "boss", nil)
	require.NoError(t, err)
	doc = handlerstest.Parse(t, a.Request(operator, http.MethodGet, "/drivers/granter/deploy", nil))
	perms = doc.Find(`[data-testid="deploy-permissions"]`)
	require.NotContains(t, handlerstest.Text(perms), "not approved")
	require.Contains(t, handlerstest.Text(perms.Find(`[data-testid="permissions-approved"]`)), "Approved by boss on ")
	require.Empty(t, perms.Find(`[data-testid="permissions-pending"]`).Nodes)
	_, disabled = doc.Find(`[data-testid="install-submit"]`).Attr("disabled")
	require.False(t, disabled)
}

// TestADeployWhoseValuesCreateMoreIsRefusedUntilAnAdminApprovesExactlyThose:
// with the defaults approved, read_nodes=true adds a ClusterRole: the
// operator's deploy is refused before anything is queued, naming exactly
// the ClusterRole's items; the admin's form offers to approve those items,
// which the audit log records; then the same values deploy.
func TestADeployWhoseValuesCreateMoreIsRefusedUntilAnAdminApprovesExactlyThose(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	ctx := context.Background()
	_, err := a.Catalog.ImportFS(ctx, handlerstest.Granter, "granter", "root")
	require.NoError(t, err)
	_, err = a.Catalog.ApprovePermissions(ctx, "granter", "1.0.0", "root", nil)
	require.NoError(t, err)
	operator, _ := a.As(t, "olga", auth.Operator)
	admin, _ := a.As(t, "boss", auth.Admin)
	form := func() url.Values { // a new one a request: Request adds the visitor's CSRF token
		return url.Values{"name": {"g1"}, "namespace": {"apps"}, "driver_version": {"1.0.0"}, "app_version": {"1.0.0"}, "param.read_nodes": {"true"}}
	}
	beyond := []string{"creates ClusterRole (rbac.authorization.k8s.io)", "grants ClusterRole: list nodes (core)"}

	rec := a.Request(operator, http.MethodPost, "/drivers/granter/deploy", form())
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-summary"]`)),
		"With these values, the chart of driver granter 1.0.0 creates more than with its default values, and no admin approved it for this driver version: creates ClusterRole (rbac.authorization.k8s.io); grants ClusterRole: list nodes (core).")
	require.Equal(t, beyond, handlerstest.Texts(doc.Find(`[data-testid="beyond-item"]`)))
	require.Empty(t, doc.Find(`[data-testid="beyond-approve"]`).Nodes, "an operator cannot approve")
	_, err = a.Deployments.Get(ctx, "g1")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "nothing was queued")

	doc = handlerstest.Parse(t, a.Request(admin, http.MethodPost, "/drivers/granter/deploy", form()))
	approve := doc.Find(`[data-testid="beyond-approve"]`)
	require.Len(t, approve.Nodes, 1)
	items, next := approve.Find(`input[name="items"]`).AttrOr("value", ""), approve.Find(`input[name="next"]`).AttrOr("value", "")
	require.Equal(t, "/drivers/granter/deploy?version=1.0.0", next)

	// An operator posting the admin's form is refused.
	rec = a.Request(operator, http.MethodPost, "/drivers/granter/1.0.0/permissions/approve", url.Values{"items": {items}})
	require.Equal(t, http.StatusForbidden, rec.Code)

	rec = a.Request(admin, http.MethodPost, "/drivers/granter/1.0.0/permissions/approve", url.Values{"items": {items}, "next": {next}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, next, rec.Header().Get("Location"))
	p, err := a.Catalog.Permissions(ctx, "granter", "1.0.0")
	require.NoError(t, err)
	require.Equal(t, beyond, p.Extra().Lines(), "exactly the items the values add are approved")

	page, err := a.Audit.List(ctx, audit.Viewer{Admin: true}, audit.Filter{Action: "driver.approve_permissions", Limit: 1})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	last := page.Entries[0]
	require.Equal(t, "boss", last.Actor.Name)
	require.Equal(t, strings.Join(beyond, "; "), last.Detail["items"])

	doc = handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/drivers/granter", nil))
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="driver-permissions"]`)), "approved for other values grants ClusterRole: list nodes (core)")

	rec = a.Request(operator, http.MethodPost, "/drivers/granter/deploy", form())
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())

	rec = a.Request(admin, http.MethodPost, "/drivers/granter/1.0.0/permissions/approve", url.Values{"items": {`{"rules":[{"role":"Robot"}]}`}})
	require.Equal(t, http.StatusBadRequest, rec.Code, "items that name nothing are refused")
}

// TestAFailedTasksPageOffersAdminsToApproveWhatItsChartNeeds: a task whose
// chart, on the cluster, created what no admin approved (a render that
// depends on the cluster, which the queueing could not see) lists those
// items on its page; an admin approves exactly them there and comes back
// to the task; an operator and a read-only user read who must.
func TestAFailedTasksPageOffersAdminsToApproveWhatItsChartNeeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := handlerstest.SetupDeployments(t)
	admin, _ := d.As(t, "ada", auth.Admin)
	q := d.Install(t, handlerstest.HelloInstall("site"))
	refused := deployment.RefusedPermissions{Driver: "hello-web", Version: "1.0.0", Items: permissions.Set{
		Kinds: []permissions.Kind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Scope: permissions.ScopeCluster}}}}
	result, err := json.Marshal(map[string]any{"refused_permissions": refused})
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `UPDATE tasks SET status = 'failed', result = $2, message = 'refused', started_at = now(), ended_at = now() WHERE id = $1`, q.TaskID, result)
	require.NoError(t, err)
	taskPage := "/deployments/site/tasks/" + strconv.FormatInt(q.TaskID, 10)

	for _, v := range []handlerstest.Visitor{d.Reader, d.Operator} {
		doc := handlerstest.Parse(t, d.Request(v, http.MethodGet, taskPage, nil))
		refusal := doc.Find(`[data-testid="task-refusal"]`)
		require.Equal(t, []string{"creates ClusterRole (rbac.authorization.k8s.io)"}, handlerstest.Texts(refusal.Find(`[data-testid="refused-item"]`)))
		require.Contains(t, handlerstest.Text(refusal), "An admin must approve these items")
		require.Empty(t, refusal.Find(`[data-testid="task-refusal-approve"]`).Nodes)
	}

	doc := handlerstest.Parse(t, d.Request(admin, http.MethodGet, taskPage, nil))
	form := doc.Find(`[data-testid="task-refusal-approve"]`)
	require.Equal(t, "/drivers/hello-web/1.0.0/permissions/approve", form.AttrOr("action", ""))
	values := url.Values{}
	form.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) { values.Set(in.AttrOr("name", ""), in.AttrOr("value", "")) })
	require.Equal(t, taskPage, values.Get("next"))

	rec := d.Request(admin, http.MethodPost, form.AttrOr("action", ""), values)
	require.Equal(t, taskPage, rec.Header().Get("Location"), "back to the task")
	p, err := d.Catalog.Permissions(ctx, "hello-web", "1.0.0")
	require.NoError(t, err)
	require.Equal(t, []string{"creates ClusterRole (rbac.authorization.k8s.io)"}, p.Extra().Lines(), "exactly the task's items are approved")
}
