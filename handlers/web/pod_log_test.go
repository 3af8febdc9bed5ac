package web_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// podLog is a log whose second line quotes the deployment's password.
const podLog = "2026-12-05T10:00:01.5Z starting\n2026-12-05T10:00:02.25Z connecting with " + handlerstest.PgSecret + "\n"

// TestPodLogPanelShowsAReadOnlyUserTheLogRedactedAndFollowsIt: a pod row of
// the health section opens the pod's log in a panel outside the section;
// its lines are redacted, and its poll asks for the lines after the newest
// one, which the same lines do not answer again.
func TestPodLogPanelShowsAReadOnlyUserTheLogRedactedAndFollowsIt(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeploymentsOn(t, handlerstest.PgLogging(t, "orders", podLog))
	d.Install(t, handlerstest.PgInstall("orders"))

	doc := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil))
	link := doc.Find(`[data-testid="deployment-health"] [data-testid="pod"][data-name="orders-postgresql-0"] [data-testid="pod-logs-link"]`)
	require.Equal(t, 1, link.Length(), "each pod row has its Logs link")
	require.Equal(t, "#pod-log", link.AttrOr("hx-target", ""))
	require.Equal(t, 1, doc.Find(`#pod-log`).Length())
	require.Zero(t, doc.Find(`[data-testid="deployment-health"] #pod-log`).Length(), "the panel is not in the section that replaces itself")

	rec := d.Request(d.Reader, http.MethodGet, link.AttrOr("hx-get", ""), nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	panel := handlerstest.Parse(t, rec)
	require.Equal(t, []string{"10:00:01 starting", "10:00:02 connecting with <redacted>"}, handlerstest.Texts(panel.Find(`[data-testid="pod-log-line"]`)))
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)
	poll := panel.Find(`[data-testid="pod-log-poll"]`)
	require.Equal(t, "/deployments/orders/pods/orders-postgresql-0/logs?container=postgresql&since=2026-12-05T10%3A00%3A02.25Z", poll.AttrOr("hx-get", ""))

	rec = d.Request(d.Reader, http.MethodGet, poll.AttrOr("hx-get", ""), nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	more := handlerstest.Parse(t, rec)
	require.Zero(t, more.Find(`[data-testid="pod-log-line"]`).Length(), "no line after the cursor")
	require.Equal(t, poll.AttrOr("hx-get", ""), more.Find(`[data-testid="pod-log-poll"]`).AttrOr("hx-get", ""), "the next poll keeps the cursor")

	page := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, link.AttrOr("href", ""), nil))
	require.Equal(t, 2, page.Find(`[data-testid="pod-log-line"]`).Length(), "without htmx, a page of its own")
}

func TestPodLogPanelRefusesAPodOfNoRelease(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeploymentsOn(t, handlerstest.PgLogging(t, "orders", podLog))
	d.Install(t, handlerstest.PgInstall("orders"))

	rec := d.Request(d.Reader, http.MethodGet, "/deployments/orders/pods/stray-0/logs", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.NotContains(t, rec.Body.String(), "connecting")
	rec = d.Request(d.Reader, http.MethodGet, "/deployments/orders/pods/orders-postgresql-0/logs?since=yesterday", nil, "HX-Request", "true")
	require.Equal(t, http.StatusBadRequest, rec.Code)
}
