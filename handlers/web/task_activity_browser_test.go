package web_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// TestBrowserTasksPageFollowsATaskWithoutReload: a read-only user watches
// the tasks page while an operator's install waits in the queue; the task
// ending (here cancelled) shows up in place, the filter narrows the list
// without a page load, and a task's link opens its own page.
func TestBrowserTasksPageFollowsATaskWithoutReload(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	ctx := context.Background()
	_, err := env.Users.Create(ctx, auth.NewUser{Username: "rita", Password: handlerstest.CatalogPassword, Role: auth.ReadOnly})
	require.NoError(t, err)
	site, err := env.Deployments.Queue(ctx, &deployment.Install{
		Driver: "hello-web", DriverVersion: "1.0.0", Name: "site", AppVersion: "1.27.0", By: "olga",
		Parameters: deployment.FormInput{"site_title": "Site"},
	})
	require.NoError(t, err)
	_, err = env.Deployments.Queue(ctx, &deployment.Install{
		Driver: "hello-web", DriverVersion: "1.0.0", Name: "blog", AppVersion: "1.27.0", By: "olga",
		Parameters: deployment.FormInput{"site_title": "Blog"},
	})
	require.NoError(t, err)
	browser := handlerstest.NewBrowser(t)

	handlerstest.Step(t, browser, "sign in to the tasks page",
		handlerstest.SignIn(env.URL+"/tasks", "rita", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="tasks-table"]`)),
	)
	const statusOf = `document.querySelector('[data-testid="activity-task"][data-task-id="%d"]')?.dataset.status`
	require.Equal(t, views.StatusQueued, handlerstest.Eval[string](t, browser, fmt.Sprintf(statusOf, site.TaskID)))
	handlerstest.Eval[bool](t, browser, `window.__sameDocument = true`)

	require.NoError(t, env.Deployments.CancelTask(ctx, "site", site.TaskID, "olga"))
	handlerstest.WaitFor(t, browser, "the cancelled install shows up in place", fmt.Sprintf(statusOf+" === %q", site.TaskID, views.StatusCanceled))
	require.Contains(t, handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="activity-task-outcome"]').textContent`), "Cancelled by olga")

	handlerstest.Step(t, browser, "show only cancelled tasks", chromedp.Evaluate[chromedp.Void](`(() => {
		const select = document.querySelector('[data-testid="task-filter-status"]');
		select.value = 'canceled';
		select.dispatchEvent(new Event('change', {bubbles: true}));
	})()`))
	handlerstest.WaitFor(t, browser, "only the cancelled install is listed",
		`document.querySelectorAll('[data-testid="activity-task"]').length === 1 && location.search.includes("status=canceled")`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "the list updated without a page reload")

	handlerstest.Step(t, browser, "open the task's page",
		chromedp.Click(chromedp.CSS(`[data-testid="activity-task-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="task-list"] [data-testid="task"]`)),
	)
	require.Equal(t, fmt.Sprintf("Install #%d of site", site.TaskID), handlerstest.Eval[string](t, browser, `document.querySelector('h1').textContent.trim()`))
}
