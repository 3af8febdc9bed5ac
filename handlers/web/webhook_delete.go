package web

import (
	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/views"
)

// WebhookDelete deletes a webhook and its delivery log.
func WebhookDelete(hooks Webhooks, ts WebhookTeams) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := webhookID(c)
		if err != nil {
			return err
		}
		by, err := webhookCaller(c, ts)
		if err != nil {
			return err
		}
		if err := hooks.Delete(c.Request().Context(), by, id); err != nil {
			return err
		}
		flash(c, views.FlashSuccess, "The webhook is deleted: nothing more is sent to it.")
		return redirect(c, "/webhooks")
	}
}
