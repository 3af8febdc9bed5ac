package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
)

// WebhookShow shows a webhook and its delivery log.
func WebhookShow(hooks Webhooks) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := webhookID(c)
		if err != nil {
			return err
		}
		w, deliveries, err := hooks.Get(c.Request().Context(), webhookCaller(c), id)
		if err != nil {
			return err
		}
		rows := make([]views.WebhookDeliveryRow, len(deliveries))
		for i, d := range deliveries {
			rows[i] = views.WebhookDeliveryRow{ID: d.ID, TaskID: d.TaskID, Event: string(d.Event), Status: d.Status, Attempts: d.Attempts,
				StatusCode: d.StatusCode, Error: d.Error, Duration: d.Duration, CreatedAt: d.CreatedAt,
				TaskURL: fmt.Sprintf("/deployments/%s/tasks/%d", url.PathEscape(d.Deployment), d.TaskID)}
			if d.RedeliveryOf != nil {
				rows[i].RedeliveryOf = *d.RedeliveryOf
			}
		}
		return render(c, http.StatusOK, views.WebhookPage(views.WebhookProps{
			Page: page(c, "Webhook "+strconv.FormatInt(id, 10), views.NavWebhooks), Webhook: webhookRow(w), Deliveries: rows,
		}))
	}
}

// webhookID is the webhook id of the request's path.
func webhookID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, styrmin.Errorf(styrmin.ENOTFOUND, "There is no webhook %q.", c.Param("id"))
	}
	return id, nil
}
