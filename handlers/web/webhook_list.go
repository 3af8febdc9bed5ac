package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
	"github.com/styrmin/styrmin/webhooks"
)

// Webhooks is what the webhook pages need (webhooks.Store).
type Webhooks interface {
	Create(ctx context.Context, by webhooks.Caller, nw webhooks.NewWebhook) (webhooks.Webhook, error)
	List(ctx context.Context, by webhooks.Caller) ([]webhooks.Webhook, error)
	Get(ctx context.Context, by webhooks.Caller, id int64) (webhooks.Webhook, []webhooks.Delivery, error)
	Delete(ctx context.Context, by webhooks.Caller, id int64) error
	Redeliver(ctx context.Context, by webhooks.Caller, id, deliveryID int64) (webhooks.Delivery, error)
}

var _ Webhooks = (*webhooks.Store)(nil)

// WebhookList shows the webhooks the user manages and the form that adds one.
func WebhookList(hooks Webhooks) echo.HandlerFunc {
	return func(c echo.Context) error {
		return renderWebhooks(c, hooks, http.StatusOK, views.WebhookForm{Format: string(webhooks.FormatJSON)})
	}
}

// webhookCaller is who manages webhooks on this request.
func webhookCaller(c echo.Context) webhooks.Caller { return webhooks.CallerOf(*httpx.CurrentUser(c)) }

// renderWebhooks renders the Webhooks page with form (empty, or as typed with its errors).
func renderWebhooks(c echo.Context, hooks Webhooks, status int, form views.WebhookForm) error {
	list, err := hooks.List(c.Request().Context(), webhookCaller(c))
	if err != nil {
		return err
	}
	rows := make([]views.WebhookRow, len(list))
	for i, w := range list {
		rows[i] = webhookRow(w)
	}
	form.AllDeployments = httpx.CurrentUser(c).Role.AtLeast(auth.Admin)
	events := make([]string, 0, len(webhooks.AllEvents()))
	for _, e := range webhooks.AllEvents() {
		events = append(events, string(e))
	}
	formats := make([]string, 0, len(webhooks.Formats()))
	for _, f := range webhooks.Formats() {
		formats = append(formats, string(f))
	}
	return render(c, status, views.WebhooksPage(views.WebhooksProps{
		Page: page(c, "Webhooks", views.NavWebhooks), Webhooks: rows, Form: form,
		Events: events, Kinds: deployment.TaskKinds(), Formats: formats,
	}))
}

// webhookRow is a webhook as the pages show it.
func webhookRow(w webhooks.Webhook) views.WebhookRow {
	events := make([]string, len(w.Events))
	for i, e := range w.Events {
		events[i] = string(e)
	}
	return views.WebhookRow{ID: w.ID, URL: w.URL, Events: events, Deployments: w.Deployments, Kinds: w.Kinds,
		Format: string(w.Format), CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt}
}
