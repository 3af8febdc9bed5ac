package views

import (
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"
)

// buttonSelector finds every control that would change something.
const buttonSelector = `main form[method="post"] button, [data-testid="upgrade-link"], [data-testid="delete-link"], [data-testid="deploy-link"], [data-testid="new-deployment"]`

func TestReviewPageNeverShowsASecret(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentReviewPage(sampleReview()))
	html, err := doc.Html()
	require.NoError(t, err)
	require.NotContains(t, html, leakedSecret, "neither a secret parameter nor a Secret manifest shows its value")

	pw := doc.Find(`[data-testid="param-change"][data-name="password"]`)
	require.Equal(t, "changed", pw.AttrOr("data-kind", ""))
	require.Equal(t, "secret · changed", strings.Join(strings.Fields(pw.Find(`[data-testid="secret-change"]`).Text()), " "))
	key := doc.Find(`[data-testid="review-unchanged"] [data-name="root_key"]`)
	require.Equal(t, "secret · unchanged", strings.Join(strings.Fields(key.Find(`[data-testid="secret-change"]`).Text()), " "), "unchanged parameters are folded away")
	require.True(t, NewParamChange("p", "P", "changed", true, "a", "b").Secret())
	require.False(t, NewParamChange("p", "P", "changed", false, "a", "b").Secret())

	replicas := doc.Find(`[data-name="replicas"][data-testid="param-change"] code.value`)
	require.Equal(t, []string{"1", "3"}, replicas.Map(func(_ int, s *goquery.Selection) string { return s.Text() }))
	require.Equal(t, 1, doc.Find(`[data-testid="review-unchanged"] [data-name="size"]`).Length())
	require.Equal(t, 0, doc.Find(`[data-testid="review-unchanged"] [data-name="replicas"]`).Length())

	sts := doc.Find(`[data-testid="resource-diff"][data-kind="StatefulSet"]`)
	require.Equal(t, 1, sts.Find(".diff-add").Length())
	require.Equal(t, "-  replicas: 1\n", sts.Find(".diff-del").Text())
	require.Equal(t, 3, sts.Find(".diff-hunk").Length(), "file and hunk headers")
	require.Equal(t, " spec:\n", sts.Find(".diff-ctx").Text())
	secret := doc.Find(`[data-testid="resource-diff"][data-kind="Secret"]`)
	require.Equal(t, 1, secret.Find(`[data-testid="diff-hidden"]`).Length())
	require.Equal(t, "data.password", secret.Find(`[data-testid="secret-key"]`).Text())
	require.Equal(t, 3, doc.Find(`[data-testid="resource-diff"]`).Length(), "unchanged resources are only counted")
	require.Equal(t, "From a Helm dry run of the upgrade: 3 resources change, 1 stay as they are.", doc.Find(`[data-testid="resource-count"]`).Text())

	confirm := doc.Find(`[data-testid="review-confirm"]`).Closest("form")
	require.Equal(t, "/deployments/cache/upgrade", confirm.AttrOr("action", ""))
	require.Equal(t, "rev-123", confirm.Find(`input[name="review"]`).AttrOr("value", ""))
	require.Equal(t, "tok", confirm.Find(`input[name="_csrf"]`).AttrOr("value", ""))
	back := doc.Find(`[data-testid="review-back"]`).Closest("form")
	require.Equal(t, "/deployments/cache/upgrade/edit", back.AttrOr("action", ""))
	require.Equal(t, "rev-123", back.Find(`input[name="review"]`).AttrOr("value", ""))
}

func TestReviewPageWithAFailedDryRunCannotBeConfirmed(t *testing.T) {
	t.Parallel()
	p := sampleReview()
	p.DryRunError = "Error: UPGRADE FAILED: template: redis/templates/sts.yaml:3: bad"
	doc := renderDoc(t, DeploymentReviewPage(p))
	require.Contains(t, doc.Find(`[data-testid="dry-run-error"]`).Text(), "UPGRADE FAILED")
	require.Empty(t, doc.Find(`[data-testid="review-confirm"]`).Nodes)
	require.Len(t, doc.Find(`[data-testid="review-back"]`).Nodes, 1)
	require.Empty(t, doc.Find(`[data-testid="resource-diff"]`).Nodes)
}

func TestTaskPollsOnlyWhileItIsActive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status string
		polls  bool
	}{
		{"queued", true},
		{"running", true},
		{"succeeded", false},
		{"failed", false},
		{"canceled", false},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			doc := renderDoc(t, Task(Viewer{}, TaskProps{Deployment: "cache", ID: 7, Kind: "upgrade", Status: tt.status}))
			root := doc.Find(`[data-testid="task"]`)
			require.Equal(t, "task-7", root.AttrOr("id", ""))
			trigger, ok := root.Attr("hx-trigger")
			require.Equal(t, tt.polls, ok)
			if tt.polls {
				require.Equal(t, "every 1s", trigger)
				require.Equal(t, "/deployments/cache/tasks/7", root.AttrOr("hx-get", ""))
				require.Equal(t, "outerHTML", root.AttrOr("hx-swap", ""))
			} else {
				require.Empty(t, doc.Find("[hx-trigger]").Nodes, "an ended task's fragment has no trigger at all")
			}
		})
	}
}

func TestTaskShowsItsStatusStepsAndHookDetails(t *testing.T) {
	t.Parallel()
	tasks := sampleTasks()
	doc := renderDoc(t, Task(Viewer{}, tasks[0]))
	require.Equal(t, "queued · position 3 in the queue", strings.Join(strings.Fields(doc.Find(`[data-testid="task-status"]`).Text()), " "))

	doc = renderDoc(t, Task(Viewer{}, TaskProps{Status: "queued"}))
	require.Equal(t, "queued · next in the queue", strings.Join(strings.Fields(doc.Find(`[data-testid="task-status"]`).Text()), " "))

	doc = renderDoc(t, Task(Viewer{}, tasks[1]))
	running := doc.Find(`#task-11`)
	require.Equal(t, 1, running.Find(`[data-testid="task-status"] .spinner`).Length())
	require.Contains(t, running.Find(`[data-testid="task-inputs"]`).Text(), "1.0.0 → 1.1.0")
	require.Equal(t, "replicas, password", strings.Join(strings.Fields(running.Find(`[data-testid="task-inputs"] dd`).Last().Text()), " "))
	steps := running.ChildrenFiltered(`[data-testid="steps"]`).ChildrenFiltered(`[data-testid="step"]`)
	require.Equal(t, 3, steps.Length())
	require.Equal(t, "1 s", steps.First().Find(`[data-testid="step-duration"]`).Text())

	hook := steps.Eq(1)
	require.Equal(t, "hook", hook.AttrOr("data-kind", ""))
	require.Equal(t, "1 min 33 s", hook.Find(`[data-testid="step-duration"]`).First().Text())
	require.Equal(t, "cache-job", hook.Find(`[data-testid="step-deleted-job"] code`).Text())
	require.Equal(t, 2, hook.Find(`[data-testid="log-line"]`).Length())
	require.Equal(t, "3 lines", hook.Find(`[data-testid="job-tail-lines"]`).Text())
	require.Equal(t, "a\nb\nc\n", hook.Find(`[data-testid="step-job-tail"] pre`).Text())
	require.Equal(t, "The Job cache-job failed: its commands exited with code 3.", hook.Find(`[data-testid="step-job-message"]`).Text())
	nested := hook.Find(`[data-testid="nested-tasks"] [data-testid="task"]`)
	require.Equal(t, "13", nested.AttrOr("data-task-id", ""))
	require.Equal(t, 1, nested.Find(`[data-testid="step"]`).Length())
	_, polls := nested.Attr("hx-trigger")
	require.False(t, polls, "a nested task is refreshed with its parent")

	doc = renderDoc(t, Task(Viewer{}, tasks[2]))
	failed := doc.Find(`#task-10`)
	require.Equal(t, "timed out waiting for component redis", failed.Find(`.error-box[data-testid="task-message"]`).Text())
	require.Equal(t, "RuntimeError: init failed", failed.Find(`[data-testid="step-error"]`).Text())
	require.Equal(t, "2 lines", failed.Find(`[data-testid="job-tail-lines"]`).Text())
	require.Contains(t, failed.Find(`[data-testid="task-duration"]`).Text(), "took 3 min")
}

func TestAFailedHookStepSaysItsErrorOnce(t *testing.T) {
	t.Parallel()
	const failure = "Action backup failed: pg_dump: connection refused"
	task := TaskProps{ID: 1, Deployment: "db", Kind: "upgrade", Status: "failed", Steps: []StepProps{
		{Title: "Back up", Kind: "hook", Status: "failed", Message: failure, Error: failure},
		{Title: "Notify", Kind: "hook", Status: "warning", Message: "The action is best-effort, so the task goes on.", Error: "Action notify failed: timeout"},
	}}
	steps := renderDoc(t, Task(Viewer{}, task)).Find(`[data-testid="step"]`)
	require.Zero(t, steps.Eq(0).Find(`[data-testid="step-message"]`).Length(), "a message that is the error is not shown twice")
	require.Equal(t, failure, steps.Eq(0).Find(`[data-testid="step-error"]`).Text())
	require.Equal(t, "The action is best-effort, so the task goes on.", steps.Eq(1).Find(`[data-testid="step-message"]`).Text())
	require.Equal(t, "Action notify failed: timeout", steps.Eq(1).Find(`[data-testid="step-error"]`).Text())
}

func TestTaskCancelIsForOperatorsOnQueuedAndRunningTasks(t *testing.T) {
	t.Parallel()
	queued := sampleTasks()[0]
	doc := renderDoc(t, Task(Viewer{CanChange: true, CSRFToken: "tok"}, queued))
	form := doc.Find(`[data-testid="task-cancel"]`).Closest("form")
	require.Equal(t, "/deployments/cache/tasks/12/cancel", form.AttrOr("action", ""))
	require.Equal(t, "tok", form.Find(`input[name="_csrf"]`).AttrOr("value", ""))

	doc = renderDoc(t, Task(Viewer{}, queued))
	require.Empty(t, doc.Find(`[data-testid="task-cancel"]`).Nodes, "read-only users get no Cancel")
	running := sampleTasks()[1]
	require.Equal(t, "running", running.Status)
	doc = renderDoc(t, Task(Viewer{CanChange: true}, running))
	require.Len(t, doc.Find(`[data-testid="task-cancel"]`).Nodes, 1, "a running task can be cancelled")
	ended := sampleTasks()[2]
	doc = renderDoc(t, Task(Viewer{CanChange: true}, ended))
	require.Empty(t, doc.Find(`[data-testid="task-cancel"]`).Nodes, "an ended task has nothing to cancel")
}

func TestTaskHistoryLoadsOlderTasks(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, TaskHistory(Viewer{}, "cache", sampleTasks(), 10))
	require.Equal(t, []string{"12", "11", "10"}, doc.Find(`body > [data-testid="task"]`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-task-id", "") }))
	more := doc.Find(`[data-testid="task-more-link"]`)
	require.Equal(t, "/deployments/cache/tasks?before=10", more.AttrOr("href", ""), "a plain link without JavaScript")
	require.Equal(t, "/deployments/cache/tasks?before=10", more.AttrOr("hx-get", ""))
	require.Equal(t, "outerHTML", more.AttrOr("hx-swap", ""))

	doc = renderDoc(t, TaskHistory(Viewer{}, "cache", sampleTasks()[2:], 0))
	require.Empty(t, doc.Find(`[data-testid="task-more"]`).Nodes, "no older tasks, no button")
}

func TestDeploymentPageButtonsFollowTheRole(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentShowPage(sampleShow(reader)))
	require.Empty(t, doc.Find(buttonSelector).Nodes, "a read-only user sees no button that would be refused")
	require.Empty(t, doc.Find(`[data-testid="task-cancel"], [data-testid="deployment-actions"]`).Nodes)
	require.Equal(t, 3, doc.Find(`[data-testid="deployment-tasks"] [data-testid="task"]`).Length()-1, "but every task (one nested)")

	doc = renderDoc(t, DeploymentShowPage(sampleShow(operator)))
	actions := doc.Find(`[data-testid="deployment-actions"]`)
	require.Equal(t, "/deployments/cache/upgrade", actions.Find(`[data-testid="upgrade-link"]`).AttrOr("href", ""))
	require.Equal(t, "/deployments/cache/delete", actions.Find(`[data-testid="delete-link"]`).AttrOr("href", ""))
	require.Equal(t, "/deployments/cache/stop", actions.Find(`[data-testid="stop-all"]`).Closest("form").AttrOr("action", ""))
	require.Equal(t, "/deployments/cache/start", actions.Find(`[data-testid="start-all"]`).Closest("form").AttrOr("action", ""))

	redis := doc.Find(`[data-testid="component"][data-name="redis"]`)
	stop := redis.Find(`[data-testid="component-stop"]`).Closest("form")
	require.Equal(t, "/deployments/cache/stop", stop.AttrOr("action", ""))
	require.Equal(t, "redis", stop.Find(`input[name="component"]`).AttrOr("value", ""))
	require.Equal(t, "tok", stop.Find(`input[name="_csrf"]`).AttrOr("value", ""))
	require.Equal(t, 1, doc.Find(`[data-name="exporter"] [data-testid="component-start"]`).Length(), "a stopped component offers Start")

	rollbacks := doc.Find(`[data-testid="rollback"]`)
	require.Equal(t, 1, rollbacks.Length(), "roll back only where the service allows it")
	form := rollbacks.Closest("form")
	require.Equal(t, "/deployments/cache/rollback", form.AttrOr("action", ""))
	require.Equal(t, "1", form.Find(`input[name="revision"]`).AttrOr("value", ""))
	require.Equal(t, 1, doc.Find(`#task-12 [data-testid="task-cancel"]`).Length())

	deleted := sampleShow(operator)
	deleted.Status = "deleted"
	doc = renderDoc(t, DeploymentShowPage(deleted))
	require.Empty(t, doc.Find(`[data-testid="deployment-actions"], [data-testid="rollback"], [data-testid="component-stop"]`).Nodes, "a deleted deployment cannot change")
}

func TestDeploymentPageShowsTheDeployment(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentShowPage(sampleShow(reader)))
	html, err := doc.Html()
	require.NoError(t, err)
	require.NotContains(t, html, leakedSecret)
	require.Equal(t, "•••••• (set)", doc.Find(`[data-name="password"] [data-testid="secret-mask"]`).Text())
	require.Equal(t, "3", doc.Find(`[data-testid="param-value"][data-name="replicas"] dd`).Text())
	require.Equal(t, "(not set)", doc.Find(`[data-testid="param-value"][data-name="motd"] dd`).Text())

	require.Equal(t, "/drivers/redis?version=1.0.0", doc.Find(`[data-testid="driver-link"]`).AttrOr("href", ""))
	require.Equal(t, "busy: upgrading…", strings.TrimSpace(doc.Find(`[data-testid="deployment-header"] [data-testid="deployment-busy"]`).Text()))
	require.Equal(t, "2 / 3", doc.Find(`[data-name="redis"] [data-testid="replicas"]`).Text())
	require.Equal(t, "stopped", doc.Find(`[data-name="exporter"] [data-testid="component-state"]`).Text())

	redis := doc.Find(`[data-testid="service"][data-name="redis"]`)
	require.Equal(t, "cache-redis.cache-ns.svc:6379", redis.Find(`[data-testid="service-address"]`).Text())
	require.Equal(t, "redis://cache-redis.cache-ns.svc:6379", redis.Find(`[data-testid="service-url"]`).Text(), "a URL of another scheme is text")
	metrics := doc.Find(`[data-testid="service"][data-name="metrics"]`)
	require.Empty(t, metrics.Find(`[data-testid="service-url"]`).Nodes, "no scheme, no URL")
	require.Equal(t, "no Service in the cluster yet", metrics.Find(`[data-testid="service-address"]`).Text())

	p := sampleShow(reader)
	p.Services = []ServiceRow{{Name: "web", Port: 80, Address: "web.ns.svc:80", URL: "http://web.ns.svc:80/admin"}, {Name: "evil", Port: 1, URL: "javascript://x/%0aalert(1)"}}
	doc = renderDoc(t, DeploymentShowPage(p))
	require.Equal(t, "http://web.ns.svc:80/admin", doc.Find(`[data-name="web"] a[data-testid="service-url"]`).AttrOr("href", ""))
	require.Empty(t, doc.Find(`[data-name="evil"] a`).Nodes, "only http and https URLs are links")
	require.Equal(t, "javascript://x/%0aalert(1)", doc.Find(`[data-name="evil"] [data-testid="service-url"]`).Text())
	require.Contains(t, doc.Find(`[data-testid="deployment-notes"] pre`).Text(), "redis-cli")
	require.Empty(t, doc.Find(`[data-testid="cluster-error"]`).Nodes)
	require.Empty(t, doc.Find(`[data-testid="release-missing"]`).Nodes)

	p = sampleShow(reader)
	p.ReleaseMissing = "Helm has no release cache in namespace cache, though Styrmin installed it."
	doc = renderDoc(t, DeploymentShowPage(p))
	require.Contains(t, doc.Find(`[data-testid="release-missing"]`).Text(), "Helm has no release cache")
	p.Revisions = []RevisionRow{{Revision: 1, Status: "unknown", AppVersion: "7.4.0", DriverVersion: "1.0.0"}}
	doc = renderDoc(t, DeploymentShowPage(p))
	cells := doc.Find(`[data-revision="1"] td`)
	require.Equal(t, "—", strings.TrimSpace(cells.Eq(2).Text()), "Styrmin's record has no chart version: a dash, not an empty box")
	require.Equal(t, "7.4.0", cells.Eq(3).Find("code").Text())

	p = sampleShow(reader)
	p.ClusterError = "dial tcp 10.0.0.1:6443: connection refused"
	doc = renderDoc(t, DeploymentShowPage(p))
	require.Contains(t, doc.Find(`[data-testid="cluster-error"]`).Text(), "connection refused")
	p.Components[0].Workloads = nil
	doc = renderDoc(t, DeploymentShowPage(p))
	require.Equal(t, "unknown", doc.Find(`[data-name="redis"] [data-testid="workloads-unknown"]`).Text(), "no workloads read, and the cluster did not answer")
}

func TestDeploymentList(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentListPage(sampleList(reader)))
	require.Equal(t, "/deployments", doc.Find(`nav [aria-current="page"]`).AttrOr("href", ""))
	require.Empty(t, doc.Find(buttonSelector).Nodes)
	cache := doc.Find(`[data-testid="deployment"][data-name="cache"]`)
	require.Equal(t, "/deployments/cache", cache.Find(`[data-testid="deployment-link"]`).AttrOr("href", ""))
	require.Equal(t, "/drivers/redis/1.0.0/icon", cache.Find(`img[data-testid="driver-icon"]`).AttrOr("src", ""))
	require.Equal(t, "deployed", cache.Find(`[data-testid="deployment-status"]`).Text())
	require.Contains(t, cache.Find(`[data-testid="deployment-busy"]`).Text(), "upgrading…")
	require.Contains(t, cache.Find(`[data-testid="last-task"]`).Text(), "by olga")
	require.Equal(t, "/deployments/cache#task-11", cache.Find(`[data-testid="last-task"] a`).AttrOr("href", ""))
	db := doc.Find(`[data-name="db"]`)
	require.Equal(t, "P", db.Find(`[data-testid="driver-icon-placeholder"]`).Text())
	require.Equal(t, "/deployments?deleted=1", doc.Find(`[data-testid="deleted-toggle"] a`).AttrOr("href", ""))

	doc = renderDoc(t, DeploymentListPage(DeploymentListProps{Page: Page{User: operator}, ShowDeleted: true}))
	require.Equal(t, "/drivers", doc.Find(`[data-testid="catalogue-link"]`).AttrOr("href", ""))
	require.Equal(t, "/deployments", doc.Find(`[data-testid="deleted-toggle"] a`).AttrOr("href", ""))
	require.Equal(t, "/drivers", doc.Find(`[data-testid="new-deployment"]`).AttrOr("href", ""))
}

func TestDriverPageOffersDeployToOperators(t *testing.T) {
	t.Parallel()
	props := DriverShowProps{Name: "redis", Version: "1.0.0", Title: "Redis"}
	props.Page = Page{User: reader}
	doc := renderDoc(t, DriverShowPage(props))
	require.Empty(t, doc.Find(`[data-testid="deploy-link"]`).Nodes)
	for _, u := range []*User{operator, {Username: "a", Role: "admin"}} {
		props.Page = Page{User: u}
		doc = renderDoc(t, DriverShowPage(props))
		require.Equal(t, "/drivers/redis/deploy?version=1.0.0", doc.Find(`[data-testid="deploy-link"]`).AttrOr("href", ""))
	}
}

func TestTimesInWords(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	require.Equal(t, "just now", agoAt(now.Add(-10*time.Second), now))
	require.Equal(t, "5 min ago", agoAt(now.Add(-5*time.Minute), now))
	require.Equal(t, "3 h ago", agoAt(now.Add(-3*time.Hour), now))
	require.Equal(t, "4 days ago", agoAt(now.Add(-4*24*time.Hour), now))
	require.Equal(t, "2026-01-01", agoAt(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), now))
	require.Equal(t, "850 ms", formatDuration(850*time.Millisecond))
	require.Equal(t, "2 min", formatDuration(2*time.Minute))
	require.Equal(t, "1 h 5 min", formatDuration(65*time.Minute))
	require.Equal(t, "1 line", lineCount("only\n"))
}

func TestOlderTasksPageWorksWithoutJavaScript(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentTasksPage(DeploymentTasksProps{Page: Page{User: reader}, Name: "cache", Tasks: sampleTasks()[2:], OlderBefore: 4}))
	require.Equal(t, "10", doc.Find(`[data-testid="task-list"] > [data-testid="task"]`).AttrOr("data-task-id", ""))
	require.Equal(t, "/deployments/cache/tasks?before=4", doc.Find(`[data-testid="task-more-link"]`).AttrOr("href", ""))
	require.Equal(t, "/deployments/cache", doc.Find(`.breadcrumbs a`).Last().AttrOr("href", ""))
}

func TestDeploymentPageSaysWhatTheLocalClusterRunsInstead(t *testing.T) {
	t.Parallel()
	p := sampleShow(reader)
	p.ImageSubstitutions = []ImageSubstitutionRow{
		{Requested: "postgres:16.4", Image: "styrmin.local/postgres:15", Runs: "Debian PostgreSQL 15.14"},
		{Requested: "redis:7.2", Runs: "no image on the local cluster stands in for redis:7.2; the local cluster builds postgres"},
		{Requested: "nginx", Image: "styrmin.local/nginx:1", Runs: "Debian nginx 1.22.1"},
	}
	doc := renderDoc(t, DeploymentShowPage(p))
	section := doc.Find(`[data-testid="deployment-components"]`)
	lines := section.Find(`[data-testid="image-substitution"]`).Map(func(_ int, s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") })
	require.Equal(t, []string{
		"On the local cluster, postgres:16.4 runs as Debian PostgreSQL 15.14 (styrmin.local/postgres:15).",
		"On the local cluster, nginx runs as Debian nginx 1.22.1 (styrmin.local/nginx:1).",
	}, lines)
	missing := section.Find(`[data-testid="image-substitute-missing"]`)
	require.Equal(t, "alert", missing.AttrOr("role", ""))
	require.Equal(t, "On the local cluster, redis:7.2 does not run: no image on the local cluster stands in for redis:7.2; the local cluster builds postgres.",
		strings.Join(strings.Fields(missing.Text()), " "))

	doc = renderDoc(t, DeploymentShowPage(sampleShow(reader)))
	require.Empty(t, doc.Find(`[data-testid="image-substitutions"], [data-testid="image-substitute-missing"]`).Nodes, "no substitution, no word of it")
}
