package handlers_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/drivers"
	bundled "github.com/styrmin/styrmin/drivers/catalog"
)

// chromiumPath is Debian's chromium, installed by scripts/ensure-chromium (make test).
const chromiumPath = "/usr/bin/chromium"

// newBrowser starts a headless Chromium with a fresh profile and returns a
// tab's context. When the test fails, a screenshot of the tab is saved to a
// temporary file named in the test log. With -short (the race detector's
// run in `make test`) it skips the test.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium, which -short leaves out")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("STYRMIN_SKIP_BROWSER") != "" {
			t.Skip("STYRMIN_SKIP_BROWSER is set and chromium is missing")
		}
		t.Fatalf("%s is missing: run scripts/ensure-chromium (make test does), or set STYRMIN_SKIP_BROWSER=1 to skip the browser test", chromiumPath)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel)
	// Start the browser now, without a deadline: a deadline on the first Run would end the browser.
	require.NoError(t, chromedp.Do(ctx), "start chromium")
	t.Cleanup(func() {
		if t.Failed() {
			saveScreenshot(t, ctx)
		}
	})
	return ctx
}

// saveScreenshot writes a full-page screenshot of the tab to a temporary file.
func saveScreenshot(t *testing.T, ctx context.Context) {
	shotCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(shotCtx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot failed: %v", err)
		return
	}
	f, err := os.CreateTemp("", "styrmin-browser-*.png")
	if err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(png); err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	t.Logf("screenshot of the failing page: %s", f.Name())
}

// step runs browser actions with a deadline.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	stepCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(stepCtx, actions...), what)
}

// eval evaluates a JavaScript expression with a deadline.
func eval[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	evalCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(evalCtx, chromedp.Evaluate[T](expression))
	require.NoError(t, err, "evaluate %s", expression)
	return v
}

// waitFor polls a JavaScript predicate until it is true.
func waitFor(t *testing.T, ctx context.Context, what, predicate string) {
	t.Helper()
	step(t, ctx, what, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(15*time.Second)))
}

// cardCount is a JavaScript expression counting the catalogue's cards.
const cardCount = `document.querySelectorAll('[data-testid="driver-card"]').length`

// TestBrowserSignInSearchAndOpenDriver drives a real Chromium through the
// catalogue: sign in, search without a page reload, open a driver page.
func TestBrowserSignInSearchAndOpenDriver(t *testing.T) {
	t.Parallel()
	env := newCatalogEnv(t)
	_, err := env.Users.Create(context.Background(), auth.NewUser{Username: "boss", Password: catalogPassword, Role: auth.Admin})
	require.NoError(t, err)
	redis, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), "redis")
	require.NoError(t, err)
	importSample(t, env, "1.0.0", "", "the first version")
	importSample(t, env, "2.0.0", "", "the second version")
	ctx := newBrowser(t)

	step(t, ctx, "sign in",
		chromedp.Navigate(env.URL+"/drivers"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signin-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), "boss"),
		chromedp.SendKeys(chromedp.CSS(`#password`), catalogPassword),
		chromedp.Click(chromedp.CSS(`[data-testid="signin-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="driver-grid"]`)),
	)
	require.Equal(t, "boss", eval[string](t, ctx, `document.querySelector('[data-testid="current-user"]').textContent.trim()`))
	require.Equal(t, len(bundled.Names())+1, eval[int](t, ctx, cardCount), "the catalogue shows every bundled driver and the sample")
	waitFor(t, ctx, "icons load", `[...document.querySelectorAll('img[data-testid="driver-icon"]')].every(i => i.complete && i.naturalWidth > 0)`)

	// A marker on the window survives htmx swaps but not a page load.
	eval[bool](t, ctx, `window.__sameDocument = true`)
	step(t, ctx, "search for redis", chromedp.SendKeys(chromedp.CSS(`[data-testid="driver-search"]`), "redis"))
	waitFor(t, ctx, "the grid shows only redis",
		cardCount+` === 1 && document.querySelector('[data-testid="driver-card"]').dataset.driver === "redis"`)
	require.True(t, eval[bool](t, ctx, `window.__sameDocument === true`), "the grid updated without a page reload")
	require.Contains(t, eval[string](t, ctx, `location.search`), "q=redis", "the search is in the address bar")

	step(t, ctx, "clear the search", chromedp.Evaluate[chromedp.Void](`(() => {
		const input = document.querySelector('[data-testid="driver-search"]');
		input.value = '';
		input.dispatchEvent(new Event('input', {bubbles: true}));
	})()`))
	waitFor(t, ctx, "every driver is back", fmt.Sprintf("%s === %d", cardCount, len(bundled.Names())+1))
	step(t, ctx, "filter by label", chromedp.Evaluate[chromedp.Void](`(() => {
		const select = document.querySelector('[data-testid="driver-label-filter"]');
		select.value = 'category=database';
		select.dispatchEvent(new Event('change', {bubbles: true}));
	})()`))
	waitFor(t, ctx, "only databases", cardCount+` === 1 && document.querySelector('[data-testid="driver-card"]').dataset.driver === "postgresql"`)
	require.True(t, eval[bool](t, ctx, `window.__sameDocument === true`), "the filter updated without a page reload")

	step(t, ctx, "open the redis page",
		chromedp.Navigate(env.URL+"/drivers?q=redis"),
		chromedp.WaitVisible(chromedp.CSS(`[data-driver="redis"] a.driver-card-link`)),
		chromedp.Click(chromedp.CSS(`[data-driver="redis"] a.driver-card-link`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="driver-page-title"]`)),
	)
	require.Equal(t, redis.Driver.Title(), eval[string](t, ctx, `document.querySelector('[data-testid="driver-page-title"]').textContent.trim()`))
	require.Equal(t, len(redis.Driver.Spec.Parameters), eval[int](t, ctx, `document.querySelectorAll('[data-testid="parameter"]').length`))
	require.Equal(t, len(redis.Driver.Spec.Actions), eval[int](t, ctx, `document.querySelectorAll('[data-testid="action"]').length`))
	shown := eval[string](t, ctx, `document.querySelector('[data-testid="driver-parameters"]').innerText`)
	for _, p := range redis.Driver.Spec.Parameters {
		require.Contains(t, shown, p.Name, "parameter %s is visible", p.Name)
	}
	actions := eval[string](t, ctx, `document.querySelector('[data-testid="driver-actions"]').innerText`)
	for _, a := range redis.Driver.Spec.Actions {
		require.True(t, strings.Contains(actions, a.Function), "action %s is visible", a.Name)
	}

	step(t, ctx, "open the sample page",
		chromedp.Navigate(env.URL+"/drivers/sample"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="version-picker"]`)),
	)
	require.Equal(t, "2.0.0", eval[string](t, ctx, `document.querySelector('[data-testid="driver-page-version"]').textContent.trim()`), "the newest version first")
	step(t, ctx, "pick version 1.0.0", chromedp.Evaluate[chromedp.Void](`(() => {
		const select = document.querySelector('#driver-version');
		select.value = '1.0.0';
		select.dispatchEvent(new Event('change', {bubbles: true}));
	})()`))
	waitFor(t, ctx, "the page shows version 1.0.0",
		`document.querySelector('[data-testid="driver-page-version"]').textContent.trim() === "1.0.0" && location.search.includes("version=1.0.0")`)
	require.Contains(t, eval[string](t, ctx, `document.querySelector('[data-testid="driver-readme"]').innerText`), "the first version")
}
