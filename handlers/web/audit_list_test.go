package web_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// recordAuditSample writes a sign-in, a deployment change made with an API
// token, a user's creation and a refused upgrade, in that order, and returns
// their ids.
func recordAuditSample(t *testing.T, a *handlerstest.App) []int64 {
	t.Helper()
	ctx := context.Background()
	for _, e := range []audit.Entry{
		{Actor: audit.Actor{Name: "ada", Via: audit.ViaNone, Address: "192.0.2.9"}, Action: "signin", Target: audit.Target{Kind: audit.TargetUser, Name: "ada"}, Outcome: audit.Refused, Reason: "Unauthorized"},
		{Actor: audit.Actor{UserID: 7, TokenID: 41, Name: "ada", Via: audit.ViaAPIToken, Role: "operator", Address: "192.0.2.9"}, Action: "deployment.install",
			Target: audit.Target{Kind: audit.TargetDeployment, Name: "shop"}, Outcome: audit.Allowed, Detail: map[string]string{"task": "3", "driver": "hello"}},
		{Actor: audit.Actor{Name: "root", Via: audit.ViaSession, Role: "admin", Address: "192.0.2.1"}, Action: "user.create", Target: audit.Target{Kind: audit.TargetUser, Name: "carl"}, Outcome: audit.Allowed},
		{Actor: audit.Actor{Name: "bob", Via: audit.ViaSession, Role: "read-only", Address: "192.0.2.2"}, Action: "deployment.upgrade", Target: audit.Target{Kind: audit.TargetDeployment, Name: "shop"}, Outcome: audit.Refused, Reason: "Forbidden"},
	} {
		require.NoError(t, a.Audit.Record(ctx, e))
	}
	page, err := a.Audit.List(ctx, audit.Viewer{Admin: true}, audit.Filter{Limit: 4})
	require.NoError(t, err)
	ids := make([]int64, 4)
	for i, e := range page.Entries {
		ids[3-i] = e.ID
	}
	return ids
}

// auditActions lists the actions of the entries a page shows, in its order.
func auditActions(doc *goquery.Document) []string {
	return doc.Find(`[data-testid="audit-entry"]`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-action", "") })
}

// TestAuditPageShowsAnAdminEveryEntry: an admin sees every entry, newest
// first, with who (the API token's id, the address), what, the target and
// the outcome with its reason.
func TestAuditPageShowsAnAdminEveryEntry(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	ids := recordAuditSample(t, a)

	rec := a.Request(admin, http.MethodGet, "/audit", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Audit log", handlerstest.Text(doc.Find(`nav [aria-current="page"]`)), "the navigation marks the audit page")
	require.Equal(t, []string{"deployment.upgrade", "user.create", "deployment.install", "signin"}, auditActions(doc))

	install := doc.Find(`[data-entry-id="` + strconv.FormatInt(ids[1], 10) + `"]`)
	require.Equal(t, "ada", handlerstest.Text(install.Find(`[data-testid="audit-actor"]`)))
	require.Equal(t, "API token #41", handlerstest.Text(install.Find(`[data-testid="audit-via"]`)), "an API token is named by its id")
	require.Equal(t, "192.0.2.9", handlerstest.Text(install.Find(`[data-testid="audit-address"]`)))
	require.Equal(t, "driver: hello, task: 3", handlerstest.Text(install.Find(`[data-testid="audit-detail"]`)))
	require.Equal(t, "/deployments/shop", install.Find(`[data-testid="audit-target"] a`).AttrOr("href", ""))

	signin := doc.Find(`[data-entry-id="` + strconv.FormatInt(ids[0], 10) + `"]`)
	require.Equal(t, "refused", handlerstest.Text(signin.Find(`[data-testid="audit-outcome"]`)))
	require.Equal(t, "Unauthorized", handlerstest.Text(signin.Find(`[data-testid="audit-reason"]`)))
	require.Equal(t, 1+len(audit.TargetKinds()), doc.Find(`[data-testid="audit-filter-target-kind"] option`).Length(), "an admin filters by every target kind")
}

// TestAuditPageShowsOthersOnlyDeployments: a read-only user and an operator
// see the entries about deployments (and teams) only, without addresses,
// whatever filter URL they craft; the same rule as GET /api/v1/audit.
func TestAuditPageShowsOthersOnlyDeployments(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, _ := a.As(t, "reader", auth.ReadOnly)
	operator, _ := a.As(t, "olga", auth.Operator)
	recordAuditSample(t, a)

	for _, v := range []handlerstest.Visitor{reader, operator} {
		rec := a.Request(v, http.MethodGet, "/audit", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		doc := handlerstest.Parse(t, rec)
		require.Equal(t, []string{"deployment.upgrade", "deployment.install"}, auditActions(doc))
		require.Zero(t, doc.Find(`[data-testid="audit-address"]`).Length(), "addresses are for admins")
		require.Equal(t, []string{"Anything", "deployment", "team"}, handlerstest.Texts(doc.Find(`[data-testid="audit-filter-target-kind"] option`)))
	}
	for _, crafted := range []string{
		"/audit?action=signin",
		"/audit?target_kind=user",
		"/audit?target_kind=user&target=carl",
		"/audit?actor=ada&action=signin&outcome=refused",
		"/audit?action=user",
	} {
		rec := a.Request(reader, http.MethodGet, crafted, nil)
		require.Equal(t, http.StatusOK, rec.Code, crafted)
		doc := handlerstest.Parse(t, rec)
		require.Empty(t, auditActions(doc), "%s shows a read-only user nothing", crafted)
		require.Equal(t, 1, doc.Find(`[data-testid="audit-empty"]`).Length(), crafted)
	}
}

// TestAuditPageFiltersAndPages: each filter narrows the list and the form
// shows it; the pager walks older entries keeping the filter; htmx gets the
// list alone; a filter that cannot be read says why.
func TestAuditPageFiltersAndPages(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	recordAuditSample(t, a)
	listed := func(target string) []string {
		t.Helper()
		rec := a.Request(admin, http.MethodGet, target, nil)
		require.Equal(t, http.StatusOK, rec.Code, target)
		return auditActions(handlerstest.Parse(t, rec))
	}
	require.Equal(t, []string{"deployment.install", "signin"}, listed("/audit?actor=ada"))
	require.Equal(t, []string{"deployment.upgrade", "deployment.install"}, listed("/audit?action=deployment"))
	require.Equal(t, []string{"user.create", "signin"}, listed("/audit?target_kind=user"))
	require.Equal(t, []string{"user.create"}, listed("/audit?target_kind=user&target=carl"))
	require.Equal(t, []string{"deployment.upgrade", "signin"}, listed("/audit?outcome=refused"))
	hour := time.Now().UTC().Add(time.Hour).Format("2006-01-02T15:04")
	require.Empty(t, listed("/audit?since="+hour))
	require.Len(t, listed("/audit?until="+hour), 4)

	rec := a.Request(admin, http.MethodGet, "/audit?outcome=refused&since=2020-01-01", nil)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "refused", doc.Find(`[data-testid="audit-filter-outcome"] option[selected]`).AttrOr("value", ""), "the form shows the filter")
	require.Equal(t, "2020-01-01T00:00", doc.Find(`[data-testid="audit-filter-since"]`).AttrOr("value", ""), "a date shows in the date-time field")

	// Pages of the store's size: insert enough entries to need a second page.
	for i := range 60 {
		require.NoError(t, a.Audit.Record(context.Background(), audit.Entry{Actor: audit.Actor{Name: "bob", Via: audit.ViaSession, Role: "operator"},
			Action: "deployment.stop", Target: audit.Target{Kind: audit.TargetDeployment, Name: "shop-" + strconv.Itoa(i)}, Outcome: audit.Allowed}))
	}
	rec = a.Request(admin, http.MethodGet, "/audit?action=deployment", nil)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, 50, doc.Find(`[data-testid="audit-entry"]`).Length())
	older := doc.Find(`[data-testid="audit-older"]`)
	href := older.AttrOr("href", "")
	require.Contains(t, href, "action=deployment", "the pager keeps the filter")
	require.Equal(t, href, older.AttrOr("hx-get", ""))
	rec = a.Request(admin, http.MethodGet, href, nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	fragment := handlerstest.Parse(t, rec)
	require.Zero(t, fragment.Find("nav.nav").Length(), "htmx gets the list alone, without the layout")
	second := auditActions(fragment)
	require.Len(t, second, 12, "the second page continues where the first stopped")
	require.Equal(t, []string{"deployment.upgrade", "deployment.install"}, second[10:])
	require.Equal(t, 1, fragment.Find(`[data-testid="audit-newest"]`).Length())
	require.Zero(t, fragment.Find(`[data-testid="audit-older"]`).Length(), "the last page has no older one")

	for _, bad := range []string{"/audit?since=last+tuesday", "/audit?action=%25", "/audit?outcome=maybe", "/audit?target_kind=planet",
		"/audit?since=2026-02-01&until=2026-01-01", "/audit?before=x"} {
		rec = a.Request(admin, http.MethodGet, bad, nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, bad)
		require.NotEmpty(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="audit-problem"]`)), "%s says what is wrong", bad)
	}
}
