package web_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/views"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"
)

func TestTasksPageListsEveryDeploymentsTasksForAReader(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	site := d.Install(t, handlerstest.HelloInstall("site"))
	db := d.Install(t, handlerstest.PgInstall("shop-db"))

	rec := d.Request(d.Reader, http.MethodGet, "/tasks", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Tasks", handlerstest.Text(doc.Find(`nav [aria-current="page"]`)), "the navigation marks the tasks page")
	rows := doc.Find(`[data-testid="activity-task"]`)
	require.Equal(t, []string{strconv.FormatInt(db.TaskID, 10), strconv.FormatInt(site.TaskID, 10)},
		rows.Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-task-id", "") }), "newest first")
	require.Equal(t, []string{"shop-db", "site"}, handlerstest.Texts(rows.Find(`[data-testid="activity-deployment"]`)))
	require.Equal(t, "/deployments/site/tasks/"+strconv.FormatInt(site.TaskID, 10),
		rows.Last().Find(`[data-testid="activity-task-link"]`).AttrOr("href", ""), "each task links to its own page")
	require.Contains(t, handlerstest.Text(rows.Last()), "Install")
	require.Contains(t, handlerstest.Text(rows.Last()), "by olga")

	activity := doc.Find(`[data-testid="task-activity"]`)
	require.Equal(t, "every 2s", activity.AttrOr("hx-trigger", ""), "queued tasks keep the list live")
	require.Equal(t, "/tasks", activity.AttrOr("hx-get", ""))

	rec = d.Request(d.Reader, http.MethodGet, "/tasks", nil, "HX-Request", "true")
	fragment := handlerstest.Parse(t, rec)
	require.Zero(t, fragment.Find("nav").Length(), "htmx gets the list alone, without the layout")
	require.Equal(t, 2, fragment.Find(`[data-testid="activity-task"]`).Length())
}

func TestTasksPageFilters(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	d.Install(t, handlerstest.PgInstall("shop-db"))
	stop, err := d.Service.Queue(context.Background(), &deployment.Stop{Name: "site", By: "olga"})
	require.NoError(t, err)
	require.NoError(t, d.Service.CancelTask(context.Background(), "site", stop.TaskID, "olga"))

	listed := func(target string) []string {
		t.Helper()
		rec := d.Request(d.Reader, http.MethodGet, target, nil)
		require.Equal(t, http.StatusOK, rec.Code, target)
		return handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="activity-task-link"]`))
	}
	require.Equal(t, []string{"Stop components", "Install"}, listed("/tasks?deployment=site"))
	require.Equal(t, []string{"Install", "Install"}, listed("/tasks?kind=install"))
	require.Equal(t, []string{"Stop components"}, listed("/tasks?status=canceled"))
	require.Empty(t, listed("/tasks?deployment=site&status=failed"))

	rec := d.Request(d.Reader, http.MethodGet, "/tasks?status=canceled", nil)
	doc := handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="activity-task-outcome"]`)), "Cancelled by olga before it started.")
	require.Equal(t, views.StatusCanceled, doc.Find(`[data-testid="task-filter-status"] option[selected]`).AttrOr("value", ""), "the form shows the filter")
	_, live := doc.Find(`[data-testid="task-activity"]`).Attr("hx-trigger")
	require.False(t, live, "a list of ended tasks does not poll")

	rec = d.Request(d.Reader, http.MethodGet, "/tasks?deployment=nowhere", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="tasks-problem"]`)), "nowhere")

	for _, bad := range []string{"/tasks?status=exploded", "/tasks?kind=reboot", "/tasks?before=x"} {
		rec = d.Request(d.Reader, http.MethodGet, bad, nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, bad)
	}
}

func TestTasksPageSaysWhyAFailedTaskFailed(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	q := d.Install(t, handlerstest.HelloInstall("site"))
	ctx := context.Background()
	_, err := d.Pool.Exec(ctx, `UPDATE tasks SET status = 'failed', message = '', started_at = now(), ended_at = now() WHERE id = $1`, q.TaskID)
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, `INSERT INTO steps (task_id, position, kind, title, status, message, started_at, ended_at)
		VALUES ($1, 1, 'helm', 'Helm install of release site', 'failed', 'timed out waiting for the condition', now(), now())`, q.TaskID)
	require.NoError(t, err)

	rec := d.Request(d.Reader, http.MethodGet, "/tasks?status=failed", nil)
	outcome := handlerstest.Parse(t, rec).Find(`[data-testid="activity-task-outcome"]`)
	require.Equal(t, "Helm install of release site: timed out waiting for the condition", handlerstest.Text(outcome))
	require.True(t, outcome.HasClass("task-outcome-failed"))
}

func TestTasksPageGoesBackAPageAtATime(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	for range 20 {
		stop, err := d.Service.Queue(context.Background(), &deployment.Stop{Name: "site", By: "olga"})
		require.NoError(t, err)
		require.NoError(t, d.Service.CancelTask(context.Background(), "site", stop.TaskID, "olga"))
	}

	doc := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/tasks?deployment=site", nil))
	require.Equal(t, 20, doc.Find(`[data-testid="activity-task"]`).Length())
	older := doc.Find(`[data-testid="tasks-older"]`).AttrOr("href", "")
	require.Regexp(t, `^/tasks\?before=\d+&deployment=site$`, older, "the next page keeps the filter")

	doc = handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, older, nil))
	require.Equal(t, []string{"Install"}, handlerstest.Texts(doc.Find(`[data-testid="activity-task-link"]`)))
	require.Zero(t, doc.Find(`[data-testid="tasks-older"]`).Length(), "the last page")
	require.Equal(t, "/tasks?deployment=site", doc.Find(`[data-testid="tasks-newest"]`).AttrOr("href", ""))
}
