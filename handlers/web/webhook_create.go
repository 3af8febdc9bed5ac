package web

import (
	"net/http"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
	"github.com/styrmin/styrmin/webhooks"
)

// WebhookCreate adds the form's webhook and goes to its page; a refused one
// shows the form again as typed (but for its secret) with the errors.
func WebhookCreate(hooks Webhooks) echo.HandlerFunc {
	return func(c echo.Context) error {
		form, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		typed := views.WebhookForm{URL: form.Get("url"), Events: form["events"], Deployments: form.Get("deployments"),
			Kinds: form["kinds"], Format: form.Get("format")}
		nw := webhooks.NewWebhook{URL: typed.URL, Secret: form.Get("secret"), Kinds: typed.Kinds, Format: webhooks.Format(typed.Format),
			Deployments: strings.FieldsFunc(typed.Deployments, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })}
		for _, e := range typed.Events {
			nw.Events = append(nw.Events, webhooks.Event(e))
		}
		w, err := hooks.Create(c.Request().Context(), webhookCaller(c), nw)
		switch styrmin.ErrorCode(err) {
		case "":
		case styrmin.EINVALID, styrmin.EFORBIDDEN:
			typed.Error, typed.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
			status := http.StatusUnprocessableEntity
			if styrmin.ErrorCode(err) == styrmin.EFORBIDDEN {
				status = http.StatusForbidden
			}
			return renderWebhooks(c, hooks, status, typed)
		default:
			return err
		}
		flash(c, views.FlashSuccess, "The webhook is added: it hears of tasks from now on.")
		return redirect(c, views.WebhookURL(w.ID))
	}
}
