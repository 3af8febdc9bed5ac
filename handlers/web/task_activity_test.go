package handlers

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"
)

func TestTasksPageListsEveryDeploymentsTasksForAReader(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	site := d.install(t, helloInstall("site"))
	db := d.install(t, pgInstall("shop-db"))

	rec := d.request(d.reader, http.MethodGet, "/tasks", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := parse(t, rec)
	require.Equal(t, "Tasks", text(doc.Find(`nav [aria-current="page"]`)), "the navigation marks the tasks page")
	rows := doc.Find(`[data-testid="activity-task"]`)
	require.Equal(t, []string{strconv.FormatInt(db.TaskID, 10), strconv.FormatInt(site.TaskID, 10)},
		rows.Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-task-id", "") }), "newest first")
	require.Equal(t, []string{"shop-db", "site"}, texts(rows.Find(`[data-testid="activity-deployment"]`)))
	require.Equal(t, "/deployments/site/tasks/"+strconv.FormatInt(site.TaskID, 10),
		rows.Last().Find(`[data-testid="activity-task-link"]`).AttrOr("href", ""), "each task links to its own page")
	require.Contains(t, text(rows.Last()), "Install")
	require.Contains(t, text(rows.Last()), "by olga")

	activity := doc.Find(`[data-testid="task-activity"]`)
	require.Equal(t, "every 2s", activity.AttrOr("hx-trigger", ""), "queued tasks keep the list live")
	require.Equal(t, "/tasks", activity.AttrOr("hx-get", ""))

	rec = d.request(d.reader, http.MethodGet, "/tasks", nil, "HX-Request", "true")
	fragment := parse(t, rec)
	require.Zero(t, fragment.Find("nav").Length(), "htmx gets the list alone, without the layout")
	require.Equal(t, 2, fragment.Find(`[data-testid="activity-task"]`).Length())
}

func TestTasksPageFilters(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	d.install(t, helloInstall("site"))
	d.install(t, pgInstall("shop-db"))
	stop, err := d.svc.Stop(context.Background(), "site", nil, "olga")
	require.NoError(t, err)
	require.NoError(t, d.svc.CancelTask(context.Background(), "site", stop.TaskID, "olga"))

	listed := func(target string) []string {
		t.Helper()
		rec := d.request(d.reader, http.MethodGet, target, nil)
		require.Equal(t, http.StatusOK, rec.Code, target)
		return texts(parse(t, rec).Find(`[data-testid="activity-task-link"]`))
	}
	require.Equal(t, []string{"Stop components", "Install"}, listed("/tasks?deployment=site"))
	require.Equal(t, []string{"Install", "Install"}, listed("/tasks?kind=install"))
	require.Equal(t, []string{"Stop components"}, listed("/tasks?status=canceled"))
	require.Empty(t, listed("/tasks?deployment=site&status=failed"))

	rec := d.request(d.reader, http.MethodGet, "/tasks?status=canceled", nil)
	doc := parse(t, rec)
	require.Contains(t, text(doc.Find(`[data-testid="activity-task-outcome"]`)), "Cancelled by olga before it started.")
	require.Equal(t, "canceled", doc.Find(`[data-testid="task-filter-status"] option[selected]`).AttrOr("value", ""), "the form shows the filter")
	_, live := doc.Find(`[data-testid="task-activity"]`).Attr("hx-trigger")
	require.False(t, live, "a list of ended tasks does not poll")

	rec = d.request(d.reader, http.MethodGet, "/tasks?deployment=nowhere", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, text(parse(t, rec).Find(`[data-testid="tasks-problem"]`)), "nowhere")

	for _, bad := range []string{"/tasks?status=exploded", "/tasks?kind=reboot", "/tasks?before=x"} {
		rec = d.request(d.reader, http.MethodGet, bad, nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, bad)
	}
}

func TestTasksPageSaysWhyAFailedTaskFailed(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	q := d.install(t, helloInstall("site"))
	ctx := context.Background()
	_, err := d.pool.Exec(ctx, `UPDATE tasks SET status = 'failed', message = '', started_at = now(), ended_at = now() WHERE id = $1`, q.TaskID)
	require.NoError(t, err)
	_, err = d.pool.Exec(ctx, `INSERT INTO steps (task_id, position, kind, title, status, message, started_at, ended_at)
		VALUES ($1, 1, 'helm', 'Helm install of release site', 'failed', 'timed out waiting for the condition', now(), now())`, q.TaskID)
	require.NoError(t, err)

	rec := d.request(d.reader, http.MethodGet, "/tasks?status=failed", nil)
	outcome := parse(t, rec).Find(`[data-testid="activity-task-outcome"]`)
	require.Equal(t, "Helm install of release site: timed out waiting for the condition", text(outcome))
	require.True(t, outcome.HasClass("task-outcome-failed"))
}

func TestTasksPageGoesBackAPageAtATime(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	d.install(t, helloInstall("site"))
	for range 20 {
		stop, err := d.svc.Stop(context.Background(), "site", nil, "olga")
		require.NoError(t, err)
		require.NoError(t, d.svc.CancelTask(context.Background(), "site", stop.TaskID, "olga"))
	}

	doc := parse(t, d.request(d.reader, http.MethodGet, "/tasks?deployment=site", nil))
	require.Equal(t, 20, doc.Find(`[data-testid="activity-task"]`).Length())
	older := doc.Find(`[data-testid="tasks-older"]`).AttrOr("href", "")
	require.Regexp(t, `^/tasks\?before=\d+&deployment=site$`, older, "the next page keeps the filter")

	doc = parse(t, d.request(d.reader, http.MethodGet, older, nil))
	require.Equal(t, []string{"Install"}, texts(doc.Find(`[data-testid="activity-task-link"]`)))
	require.Zero(t, doc.Find(`[data-testid="tasks-older"]`).Length(), "the last page")
	require.Equal(t, "/tasks?deployment=site", doc.Find(`[data-testid="tasks-newest"]`).AttrOr("href", ""))
}
