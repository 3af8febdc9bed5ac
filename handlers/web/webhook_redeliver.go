package web

import (
	"fmt"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
)

// WebhookRedeliver sends a delivery again, as a new delivery, and shows the log.
func WebhookRedeliver(hooks Webhooks, ts WebhookTeams) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := webhookID(c)
		if err != nil {
			return err
		}
		delivery, err := strconv.ParseInt(c.Param("delivery"), 10, 64)
		if err != nil || delivery <= 0 {
			return styrmin.Errorf(styrmin.ENOTFOUND, "Webhook %d has no delivery %q.", id, c.Param("delivery"))
		}
		by, err := webhookCaller(c, ts)
		if err != nil {
			return err
		}
		d, err := hooks.Redeliver(c.Request().Context(), by, id, delivery)
		if err != nil {
			return err
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Delivery %d is queued: it sends delivery %d again.", d.ID, delivery))
		return redirect(c, views.WebhookURL(id))
	}
}
