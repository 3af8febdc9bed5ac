package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
)

// TestBrowserSignInSearchAndOpenDriver drives a real Chromium through the
// catalogue: sign in, search without a page reload, open a driver page.
func TestBrowserSignInSearchAndOpenDriver(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	_, err := env.Users.Create(context.Background(), auth.NewUser{Username: "boss", Password: handlerstest.CatalogPassword, Role: auth.Admin})
	require.NoError(t, err)
	redis, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), "redis")
	require.NoError(t, err)
	handlerstest.ImportSample(t, env, "1.0.0", "", "the first version")
	handlerstest.ImportSample(t, env, "2.0.0", "", "the second version")
	ctx := handlerstest.NewBrowser(t)

	handlerstest.Step(t, ctx, "sign in",
		handlerstest.SignIn(env.URL+"/drivers", "boss", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="driver-grid"]`)),
	)
	require.Equal(t, "boss", handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="current-user"]').textContent.trim()`))
	require.Equal(t, len(bundled.Names())+1, handlerstest.Eval[int](t, ctx, handlerstest.CardCount), "the catalogue shows every bundled driver and the sample")
	handlerstest.WaitFor(t, ctx, "icons load", `[...document.querySelectorAll('img[data-testid="driver-icon"]')].every(i => i.complete && i.naturalWidth > 0)`)

	// A marker on the window survives htmx swaps but not a page load.
	handlerstest.Eval[bool](t, ctx, `window.__sameDocument = true`)
	handlerstest.Step(t, ctx, "search for redis", chromedp.SendKeys(chromedp.CSS(`[data-testid="driver-search"]`), "redis"))
	handlerstest.WaitFor(t, ctx, "the grid shows only redis",
		handlerstest.CardCount+` === 1 && document.querySelector('[data-testid="driver-card"]').dataset.driver === "redis"`)
	require.True(t, handlerstest.Eval[bool](t, ctx, `window.__sameDocument === true`), "the grid updated without a page reload")
	require.Contains(t, handlerstest.Eval[string](t, ctx, `location.search`), "q=redis", "the search is in the address bar")

	handlerstest.Step(t, ctx, "clear the search", chromedp.Evaluate[chromedp.Void](`(() => {
		const input = document.querySelector('[data-testid="driver-search"]');
		input.value = '';
		input.dispatchEvent(new Event('input', {bubbles: true}));
	})()`))
	handlerstest.WaitFor(t, ctx, "every driver is back", fmt.Sprintf("%s === %d", handlerstest.CardCount, len(bundled.Names())+1))
	handlerstest.Step(t, ctx, "filter by label", chromedp.Evaluate[chromedp.Void](`(() => {
		const select = document.querySelector('[data-testid="driver-label-filter"]');
		select.value = 'category=database';
		select.dispatchEvent(new Event('change', {bubbles: true}));
	})()`))
	handlerstest.WaitFor(t, ctx, "only databases", handlerstest.CardCount+` === 1 && document.querySelector('[data-testid="driver-card"]').dataset.driver === "postgresql"`)
	require.True(t, handlerstest.Eval[bool](t, ctx, `window.__sameDocument === true`), "the filter updated without a page reload")

	handlerstest.Step(t, ctx, "open the redis page",
		chromedp.Navigate(env.URL+"/drivers?q=redis"),
		chromedp.WaitVisible(chromedp.CSS(`[data-driver="redis"] a.driver-card-link`)),
		chromedp.Click(chromedp.CSS(`[data-driver="redis"] a.driver-card-link`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="driver-page-title"]`)),
	)
	require.Equal(t, redis.Driver.Title(), handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="driver-page-title"]').textContent.trim()`))
	require.Equal(t, len(redis.Driver.Spec.Parameters), handlerstest.Eval[int](t, ctx, `document.querySelectorAll('[data-testid="parameter"]').length`))
	require.Equal(t, len(redis.Driver.Spec.Actions), handlerstest.Eval[int](t, ctx, `document.querySelectorAll('[data-testid="action"]').length`))
	shown := handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="driver-parameters"]').innerText`)
	for _, p := range redis.Driver.Spec.Parameters {
		require.Contains(t, shown, p.Name, "parameter %s is visible", p.Name)
	}
	actions := handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="driver-actions"]').innerText`)
	for _, a := range redis.Driver.Spec.Actions {
		require.True(t, strings.Contains(actions, a.Function), "action %s is visible", a.Name)
	}

	handlerstest.Step(t, ctx, "open the sample page",
		chromedp.Navigate(env.URL+"/drivers/sample"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="version-picker"]`)),
	)
	require.Equal(t, "2.0.0", handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="driver-page-version"]').textContent.trim()`), "the newest version first")
	handlerstest.Step(t, ctx, "pick version 1.0.0", chromedp.Evaluate[chromedp.Void](`(() => {
		const select = document.querySelector('#driver-version');
		select.value = '1.0.0';
		select.dispatchEvent(new Event('change', {bubbles: true}));
	})()`))
	handlerstest.WaitFor(t, ctx, "the page shows version 1.0.0",
		`document.querySelector('[data-testid="driver-page-version"]').textContent.trim() === "1.0.0" && location.search.includes("version=1.0.0")`)
	require.Contains(t, handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="driver-readme"]').innerText`), "the first version")
}
