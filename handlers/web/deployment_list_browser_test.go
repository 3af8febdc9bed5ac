package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestBrowserFiltersTheDeploymentsList drives a real Chromium through the
// deployments list as a read-only user: the driver filter and the search
// replace the list without a page load and go into the address, a search
// nothing matches says so with a way back, and the shared address, opened
// anew, shows the same list.
func TestBrowserFiltersTheDeploymentsList(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	ctx := context.Background()
	_, err := env.Users.Create(ctx, auth.NewUser{Username: "rita", Password: handlerstest.CatalogPassword, Role: auth.ReadOnly})
	require.NoError(t, err)
	for _, install := range []*deployment.Install{handlerstest.HelloInstall("shop"), handlerstest.HelloInstall("blog"), handlerstest.PgInstall("orders")} {
		install.By = "olga"
		_, err := env.Deployments.Queue(ctx, install)
		require.NoError(t, err)
	}
	browser := handlerstest.NewBrowser(t)
	names := `[...document.querySelectorAll('[data-testid="deployment-link"]')].map(a => a.textContent).join()`

	handlerstest.Step(t, browser, "sign in and open the deployments",
		handlerstest.SignIn(env.URL+"/signin", "rita", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`)),
		chromedp.Navigate(env.URL+"/deployments"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployments-table"]`)),
	)
	require.Equal(t, "blog,orders,shop", handlerstest.Eval[string](t, browser, names))
	handlerstest.Eval[bool](t, browser, `window.__sameDocument = true`)

	handlerstest.Eval[bool](t, browser, `(() => {
		const s = document.querySelector('[data-testid="deployment-filter-driver"]');
		s.value = 'hello-web';
		return s.dispatchEvent(new Event('change', {bubbles: true}));
	})()`)
	handlerstest.WaitFor(t, browser, "the list shows the Hello Web ones", names+` === 'blog,shop'`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "the list changed without a page load")
	handlerstest.WaitFor(t, browser, "the address keeps the filter", `location.search === '?driver=hello-web'`)

	handlerstest.Step(t, browser, "search for a name",
		chromedp.SendKeys(chromedp.CSS(`[data-testid="deployment-filter-q"]`), "SHO\r"),
	)
	handlerstest.WaitFor(t, browser, "one matches", names+` === 'shop'`)
	require.Contains(t, handlerstest.Eval[string](t, browser, `location.search`), "q=SHO")

	handlerstest.Step(t, browser, "search for what no deployment is called",
		chromedp.SendKeys(chromedp.CSS(`[data-testid="deployment-filter-q"]`), "x\r"),
	)
	handlerstest.WaitFor(t, browser, "nothing matches, and it says so", `document.querySelector('[data-testid="deployments-no-match"]') !== null`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`))

	handlerstest.Step(t, browser, "open the shared address anew",
		chromedp.Navigate(env.URL+"/deployments?driver=postgresql"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployments-table"]`)),
	)
	require.Equal(t, "orders", handlerstest.Eval[string](t, browser, names))
	require.Equal(t, "postgresql", handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="deployment-filter-driver"]').value`))
}

// TestBrowserPagesTheDeploymentsListBackAndForth drives a real Chromium
// through a list of two-deployment pages as a read-only user: Next, then
// Previous, each without a page load, land back on the first page, at its
// own address, with the search kept.
func TestBrowserPagesTheDeploymentsListBackAndForth(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	ctx := context.Background()
	_, err := env.Users.Create(ctx, auth.NewUser{Username: "rita", Password: handlerstest.CatalogPassword, Role: auth.ReadOnly})
	require.NoError(t, err)
	for _, name := range []string{"a-shop", "b-shop", "blog", "c-shop"} {
		install := handlerstest.HelloInstall(name)
		install.By = "olga"
		_, err := env.Deployments.Queue(ctx, install)
		require.NoError(t, err)
	}
	browser := handlerstest.NewBrowser(t)
	names := `[...document.querySelectorAll('[data-testid="deployment-link"]')].map(a => a.textContent).join()`

	handlerstest.Step(t, browser, "sign in and open the first page of the shops",
		handlerstest.SignIn(env.URL+"/signin", "rita", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`)),
		chromedp.Navigate(env.URL+"/deployments?limit=2&q=shop"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployments-table"]`)),
	)
	require.Equal(t, "a-shop,b-shop", handlerstest.Eval[string](t, browser, names))
	require.False(t, handlerstest.Eval[bool](t, browser, `document.querySelector('[data-testid="deployments-previous"]') !== null`))
	handlerstest.Eval[bool](t, browser, `window.__sameDocument = true`)

	handlerstest.Step(t, browser, "Next", chromedp.Click(chromedp.CSS(`[data-testid="deployments-next"]`)))
	handlerstest.WaitFor(t, browser, "the second page", names+` === 'c-shop'`)
	require.Contains(t, handlerstest.Eval[string](t, browser, `location.search`), "after=")

	handlerstest.Step(t, browser, "Previous", chromedp.Click(chromedp.CSS(`[data-testid="deployments-previous"]`)))
	handlerstest.WaitFor(t, browser, "the first page again", names+` === 'a-shop,b-shop'`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "paged without a page load")
	handlerstest.WaitFor(t, browser, "at the first page's own address", `location.search === '?limit=2&q=shop'`)
	require.False(t, handlerstest.Eval[bool](t, browser, `document.querySelector('[data-testid="deployments-previous"]') !== null`), "no Previous on the first page")
}
