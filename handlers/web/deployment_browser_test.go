package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/views"
)

// taskTime is how long a task on the cluster may take.
const taskTime = 5 * time.Minute

// TestBrowserInstallAndUpgradeOnTheCluster drives a real Chromium through a
// deployment's life on the local Kubernetes: install Hello Web from its form,
// watch the task finish live, upgrade it through the review page and watch
// that task finish live too.
func TestBrowserInstallAndUpgradeOnTheCluster(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewClusterEnv(t)
	_, err := env.Users.Create(context.Background(), auth.NewUser{Username: "boss", Password: handlerstest.CatalogPassword, Role: auth.Admin})
	require.NoError(t, err)
	name := kubetest.UniqueName("browser")
	env.RemoveWhenDone(t, name)
	ctx := handlerstest.NewBrowser(t)

	handlerstest.Step(t, ctx, "sign in and open the Hello Web driver",
		handlerstest.SignIn(env.URL+"/drivers/hello-web", "boss", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deploy-link"]`)),
	)
	handlerstest.Step(t, ctx, "open the install form",
		chromedp.Click(chromedp.CSS(`[data-testid="deploy-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="install-form"]`)),
	)
	require.Equal(t, "Hello from Styrmin", handlerstest.Eval[string](t, ctx, `document.querySelector('#param-site_title').value`), "defaults are filled in")
	require.Contains(t, handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="deploy-permissions"]').textContent`),
		"creates nothing cluster-scoped or in another namespace, grants no RBAC rule", "the form says what the driver version may create")
	require.False(t, handlerstest.Eval[bool](t, ctx, `document.querySelector('[data-testid="install-submit"]').disabled`), "a version that needs no approval can be deployed")
	handlerstest.Step(t, ctx, "fill in and submit the form",
		chromedp.SendKeys(chromedp.CSS(`#deploy-name`), name),
		chromedp.SetValue(chromedp.CSS(`#param-site_title`), "Browser shop"),
		chromedp.Click(chromedp.CSS(`[data-testid="install-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-header"]`)),
	)
	require.Equal(t, "/deployments/"+name, handlerstest.Eval[string](t, ctx, `location.pathname`))
	require.Equal(t, name, handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="deployment-name"]').textContent.trim()`))
	require.Contains(t, handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="flash"]').textContent`), "queued for install")

	// A marker on the window survives htmx swaps but not a page load.
	handlerstest.Eval[bool](t, ctx, `window.__sameDocument = true`)
	handlerstest.WaitLong(t, ctx, "the install task succeeds live", handlerstest.NewestTask+`.dataset.status === "`+views.StatusSucceeded+`"`, taskTime)
	require.True(t, handlerstest.Eval[bool](t, ctx, `window.__sameDocument === true`), "the task updated without a page reload")
	require.Greater(t, handlerstest.Eval[int](t, ctx, handlerstest.NewestTask+`.querySelectorAll('[data-testid="step"]').length`), 1, "its steps are shown")
	handlerstest.WaitFor(t, ctx, "the header follows the task",
		`document.querySelector('[data-testid="deployment-status"]').textContent.trim() === "`+views.StatusDeployed+`" && !document.querySelector('[data-testid="deployment-busy"]')`)
	handlerstest.WaitFor(t, ctx, "the components follow the task",
		`[...document.querySelectorAll('[data-testid="component"][data-name="web"] [data-testid="replicas"]')].map(r => r.textContent.replace(/\s/g, "")).join() === "2/2"`)
	require.True(t, handlerstest.Eval[bool](t, ctx, `window.__sameDocument === true`))
	require.False(t, handlerstest.Eval[bool](t, ctx, `!!document.querySelector('[data-testid="simulated-cluster"]')`), "the local cluster's pods are real")
	require.Regexp(t, `On the local cluster, nginx:1\.27\.0 runs as Debian nginx 1\.22\.\d+ \(styrmin\.local/nginx:1\)\.`,
		handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="image-substitution"]').textContent`), "the page says what really runs")

	handlerstest.Step(t, ctx, "open the upgrade form",
		chromedp.Navigate(env.URL+"/deployments/"+name),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upgrade-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="upgrade-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upgrade-form"]`)),
	)
	require.Equal(t, "Browser shop", handlerstest.Eval[string](t, ctx, `document.querySelector('#param-site_title').value`), "the form starts from the current values")
	handlerstest.Step(t, ctx, "change a parameter and review",
		chromedp.SetValue(chromedp.CSS(`#param-replicas`), "3"),
		chromedp.Click(chromedp.CSS(`[data-testid="upgrade-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="review-changes"]`)),
	)
	require.Equal(t, "changed", handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="param-change"][data-name="replicas"]').dataset.kind`))
	require.False(t, handlerstest.Eval[bool](t, ctx, `!!document.querySelector('[data-testid="dry-run-error"]')`), "the dry run works")
	require.Contains(t, handlerstest.Eval[string](t, ctx, `[...document.querySelectorAll('[data-testid="resource-diff"][data-kind="Deployment"] [data-testid="diff"]')].map(d => d.textContent).join("\n")`),
		"+  replicas: 3", "the manifest diff shows the change")

	handlerstest.Step(t, ctx, "confirm the upgrade",
		chromedp.Click(chromedp.CSS(`[data-testid="review-confirm"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-header"]`)),
	)
	require.Equal(t, "/deployments/"+name, handlerstest.Eval[string](t, ctx, `location.pathname`))
	require.Contains(t, handlerstest.Eval[string](t, ctx, handlerstest.NewestTask+`.querySelector('h3').textContent`), "Upgrade")
	handlerstest.Eval[bool](t, ctx, `window.__sameDocument = true`)
	handlerstest.WaitLong(t, ctx, "the upgrade task succeeds live", handlerstest.NewestTask+`.dataset.status === "`+views.StatusSucceeded+`"`, taskTime)
	require.True(t, handlerstest.Eval[bool](t, ctx, `window.__sameDocument === true`), "the task updated without a page reload")
	handlerstest.WaitFor(t, ctx, "the parameters and revisions follow the task",
		`document.querySelector('[data-testid="param-value"][data-name="replicas"] code.value').textContent.trim() === "3" && `+
			`document.querySelectorAll('[data-testid="revision"]').length === 2`)
	require.True(t, handlerstest.Eval[bool](t, ctx, `window.__sameDocument === true`))

	d, err := env.Service.Get(context.Background(), name)
	require.NoError(t, err)
	require.Equal(t, float64(3), d.Parameters["replicas"])
	queued, err := env.Service.Queue(context.Background(), &deployment.Delete{Name: name, Confirm: name, By: "boss"})
	require.NoError(t, err)
	env.WaitEnded(t, name, queued.TaskID)
}
