package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/views"
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
		handlerstest.SignIn(env.URL+"/signin", "olga", handlerstest.CatalogPassword),
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

// TestBrowserEditsAWebhook drives a real Chromium through a webhook's page:
// an operator's edit that would make it every deployment's is refused in
// place (no page load, the form still open with what they typed); the
// corrected edit is saved, with the secret field left empty (which keeps it).
func TestBrowserEditsAWebhook(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewCatalogEnv(t)
	bg := context.Background()
	_, err := env.Users.Create(bg, auth.NewUser{Username: "olga", Password: handlerstest.CatalogPassword, Role: auth.Operator})
	require.NoError(t, err)
	olga := webhooks.Caller{Username: "olga", Role: auth.Operator}
	hook, err := env.Webhooks.Create(bg, olga, webhooks.NewWebhook{URL: "https://hooks.example/styrmin", Secret: webhookSecret,
		Events: []webhooks.Event{webhooks.Failed}, Deployments: []string{"shop"}})
	require.NoError(t, err)
	ctx := handlerstest.NewBrowser(t)

	handlerstest.Step(t, ctx, "sign in and open the webhook",
		handlerstest.SignIn(env.URL+"/signin", "olga", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav"]`)),
		chromedp.Navigate(env.URL+views.WebhookURL(hook.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="edit-webhook"] summary`)),
	)
	handlerstest.Eval[bool](t, ctx, `window.__sameDocument = true`)
	handlerstest.Step(t, ctx, "make it every deployment's",
		chromedp.Click(chromedp.CSS(`[data-testid="edit-webhook"] summary`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="edit-webhook-form"] [data-testid="deployments"]`)),
		chromedp.Clear(chromedp.CSS(`[data-testid="edit-webhook-form"] [data-testid="deployments"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="edit-webhook-form"] [data-testid="event-succeeded"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="save-webhook"]`)),
	)
	handlerstest.WaitFor(t, ctx, "the form says why", `document.querySelector('[data-testid="edit-webhook-form"] [data-testid="form-error"]')?.textContent.includes('Operators manage webhooks of named deployments only')`)
	require.True(t, handlerstest.Eval[bool](t, ctx, `window.__sameDocument === true`), "the error came without a page load")
	require.True(t, handlerstest.Eval[bool](t, ctx, `document.querySelector('[data-testid="edit-webhook"]').open`), "the form stays open")
	require.True(t, handlerstest.Eval[bool](t, ctx, `document.querySelector('[data-testid="edit-webhook-form"] [data-testid="event-succeeded"]').checked`), "with what was typed")

	handlerstest.Step(t, ctx, "name two deployments and save",
		chromedp.SendKeys(chromedp.CSS(`[data-testid="edit-webhook-form"] [data-testid="deployments"]`), "shop, blog"),
		chromedp.Click(chromedp.CSS(`[data-testid="save-webhook"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)),
	)
	require.Contains(t, handlerstest.Eval[string](t, ctx, `document.querySelector('[data-testid="flash"]').textContent`), "The webhook is saved")
	saved, _, err := env.Webhooks.Get(bg, olga, hook.ID)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"shop", "blog"}, saved.Deployments)
	require.ElementsMatch(t, []webhooks.Event{webhooks.Failed, webhooks.Succeeded}, saved.Events)
	require.Contains(t, handlerstest.Eval[string](t, ctx, `document.querySelector('#webhook-page dd[data-testid="events"]').textContent`), "succeeded")
}
