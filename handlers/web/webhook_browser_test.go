package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/webhooks"
)

// TestBrowserAddsAWebhook drives a real Chromium through the Webhooks page:
// an operator's refused webhook shows its error in place (no page load), and
// the corrected one leads to its page.
func TestBrowserAddsAWebhook(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	_, err := env.Users.Create(context.Background(), auth.NewUser{Username: "olga", Password: handlerstest.CatalogPassword, Role: auth.Operator})
	require.NoError(t, err)
	ctx := handlerstest.NewBrowser(t)

	handlerstest.Step(t, ctx, "sign in and open the webhooks",
		chromedp.Navigate(env.URL+"/signin"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="signin-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), "olga"),
		chromedp.SendKeys(chromedp.CSS(`#password`), handlerstest.CatalogPassword),
		chromedp.Click(chromedp.CSS(`[data-testid="signin-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`)),
		chromedp.Click(chromedp.CSS(`nav a[href="/webhooks"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-webhook-form"]`)),
	)
	handlerstest.Eval[bool](t, ctx, `window.__sameDocument = true`)
	handlerstest.Step(t, ctx, "add a webhook for every deployment",
		chromedp.SendKeys(chromedp.CSS(`[data-testid="url"]`), "https://hooks.example/styrmin"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="secret"]`), webhookSecret),
		chromedp.Click(chromedp.CSS(`[data-testid="event-failed"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="create-webhook"]`)),
	)
	handlerstest.WaitFor(t, ctx, "the form says why", `document.querySelector('[data-testid="form-error"]')?.textContent.includes('Operators manage webhooks of named deployments only')`)
	require.True(t, handlerstest.Eval[bool](t, ctx, `window.__sameDocument === true`), "the error came without a page load")
	require.Equal(t, "https://hooks.example/styrmin", handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="url"]').value`))

	handlerstest.Step(t, ctx, "name the deployment and add it again",
		chromedp.SendKeys(chromedp.CSS(`[data-testid="secret"]`), webhookSecret),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="deployments"]`), "shop"),
		chromedp.Click(chromedp.CSS(`[data-testid="create-webhook"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="delete-webhook"]`)),
	)
	require.Contains(t, handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="flash"]').textContent`), "The webhook is added")
	list, err := env.Webhooks.List(context.Background(), webhooks.Caller{Username: "olga", Role: auth.Operator})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, []string{"shop"}, list[0].Deployments)
	require.Equal(t, []webhooks.Event{webhooks.Failed}, list[0].Events)
}
