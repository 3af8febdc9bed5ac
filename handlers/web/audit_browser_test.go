package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestBrowserFiltersTheAuditLog drives a real Chromium through the audit
// page: an admin reaches it from the navigation, a filter replaces the list
// without a page load and goes into the address, and that address, opened
// anew, shows the same filtered list.
func TestBrowserFiltersTheAuditLog(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	ctx := context.Background()
	_, err := env.Users.Create(ctx, auth.NewUser{Username: "root", Password: handlerstest.CatalogPassword, Role: auth.Admin})
	require.NoError(t, err)
	for _, e := range []audit.Entry{
		{Actor: audit.Actor{Name: "ada", Via: audit.ViaNone}, Action: "signin", Target: audit.Target{Kind: audit.TargetUser, Name: "ada"}, Outcome: audit.Refused, Reason: "Unauthorized"},
		{Actor: audit.Actor{Name: "ada", Via: audit.ViaSession, Role: "operator"}, Action: "deployment.install", Target: audit.Target{Kind: audit.TargetDeployment, Name: "shop"}, Outcome: audit.Allowed},
	} {
		require.NoError(t, env.Audit.Record(ctx, e))
	}
	browser := handlerstest.NewBrowser(t)

	handlerstest.Step(t, browser, "sign in and open the audit log",
		handlerstest.SignIn(env.URL+"/signin", "root", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`)),
		chromedp.Click(chromedp.CSS(`nav a[href="/audit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-table"]`)),
	)
	// An admin's header, at the narrowest width that keeps it one row and at
	// the widest that gives the links their own: the nine links on one line
	// each, and Sign out on the page, not pushed past its right edge.
	require.Equal(t, 9, handlerstest.Eval[int](t, browser, `document.querySelectorAll('[data-testid="nav"] a').length`))
	for _, width := range []int64{1101, 1100} {
		handlerstest.Step(t, browser, "resize", chromedp.EmulateViewport(width, 900))
		require.True(t, handlerstest.Eval[bool](t, browser, `new Set([...document.querySelectorAll('[data-testid="nav"] a')].map(a => Math.round(a.getBoundingClientRect().height))).size === 1`),
			"at %d px every link is as tall as the others: none wraps", width)
		require.True(t, handlerstest.Eval[bool](t, browser, `document.querySelector('[data-testid="signout"]').getBoundingClientRect().right <= document.documentElement.clientWidth`),
			"at %d px Sign out is on the page", width)
	}
	handlerstest.Step(t, browser, "back to the window's size", chromedp.EmulateReset())
	// The filters' fields are one line tall, not stretched by the row's layout.
	require.Less(t, handlerstest.Eval[float64](t, browser, `document.querySelector('[data-testid="audit-filter-actor"]').getBoundingClientRect().height`), 60.0)
	require.Less(t, handlerstest.Eval[float64](t, browser, `document.querySelector('[data-testid="audit-filter-outcome"]').getBoundingClientRect().height`), 60.0)
	// The sign-in of root is on the list too: at least the two entries above.
	require.GreaterOrEqual(t, handlerstest.Eval[int](t, browser, `document.querySelectorAll('[data-testid="audit-entry"]').length`), 3)
	handlerstest.Eval[bool](t, browser, `window.__sameDocument = true`)

	// Choosing an option, as a person does: the select's value changes and it fires change.
	handlerstest.Eval[bool](t, browser, `(() => {
		const s = document.querySelector('[data-testid="audit-filter-outcome"]');
		s.value = 'refused';
		return s.dispatchEvent(new Event('change', {bubbles: true}));
	})()`)
	handlerstest.WaitFor(t, browser, "the list shows only the refused sign-in",
		`[...document.querySelectorAll('[data-testid="audit-entry"]')].map(e => e.dataset.action).join() === 'signin'`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "the list changed without a page load")
	handlerstest.WaitFor(t, browser, "the address keeps the filter", `location.search === '?outcome=refused'`)

	handlerstest.Step(t, browser, "narrow to one actor and press enter",
		chromedp.SendKeys(chromedp.CSS(`[data-testid="audit-filter-actor"]`), "nobody\r"),
	)
	handlerstest.WaitFor(t, browser, "nothing matches", `document.querySelector('[data-testid="audit-empty"]') !== null`)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`))
	search := handlerstest.Eval[string](t, browser, `location.search`)
	require.Contains(t, search, "actor=nobody")
	require.Contains(t, search, "outcome=refused")

	handlerstest.Step(t, browser, "open the shared address anew",
		chromedp.Navigate(env.URL+"/audit?outcome=refused&action=signin"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-table"]`)),
	)
	require.Equal(t, "signin", handlerstest.Eval[string](t, browser,
		`[...document.querySelectorAll('[data-testid="audit-entry"]')].map(e => e.dataset.action).join()`))
	require.Equal(t, "refused", handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="audit-filter-outcome"]').value`))
	require.Equal(t, "signin", handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="audit-filter-action"]').value`))
}
