package web

import (
	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/views"
	"github.com/styrmin/styrmin/webhooks"
)

// WebhookUpdate saves the edit form of a webhook's page and shows the page
// again; an empty secret keeps the secret. A refused change shows the form
// as typed (but for its secret) with the errors.
func WebhookUpdate(hooks Webhooks, ts WebhookTeams) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := webhookID(c)
		if err != nil {
			return err
		}
		typed, nw, err := webhookFormOf(c)
		if err != nil {
			return err
		}
		by, err := webhookCaller(c, ts)
		if err != nil {
			return err
		}
		ch := webhooks.WebhookChange{URL: &nw.URL, Secret: &nw.Secret, Events: &nw.Events, Deployments: &nw.Deployments, Kinds: &nw.Kinds, Format: &nw.Format}
		if _, err := hooks.Update(c.Request().Context(), by, id, ch); err != nil {
			if status, form, ok := refusedForm(typed, err); ok {
				return renderWebhook(c, hooks, ts, id, status, &form)
			}
			return err
		}
		flash(c, views.FlashSuccess, "The webhook is saved.")
		return redirect(c, views.WebhookURL(id))
	}
}
