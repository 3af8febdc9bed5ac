package web

import (
	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/views"
)

// WebhookCreate adds the form's webhook and goes to its page; a refused one
// shows the form again as typed (but for its secret) with the errors.
func WebhookCreate(hooks Webhooks, ts WebhookTeams) echo.HandlerFunc {
	return func(c echo.Context) error {
		typed, nw, err := webhookFormOf(c)
		if err != nil {
			return err
		}
		by, err := webhookCaller(c, ts)
		if err != nil {
			return err
		}
		w, err := hooks.Create(c.Request().Context(), by, nw)
		if err != nil {
			if status, form, ok := refusedForm(typed, err); ok {
				return renderWebhooks(c, hooks, ts, status, form)
			}
			return err
		}
		flash(c, views.FlashSuccess, "The webhook is added: it hears of tasks from now on.")
		return redirect(c, views.WebhookURL(w.ID))
	}
}
