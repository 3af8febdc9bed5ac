package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
	"github.com/styrmin/styrmin/webhooks"
)

// WebhookShow shows a webhook, its delivery log and the form that edits it.
func WebhookShow(hooks Webhooks, ts WebhookTeams) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := webhookID(c)
		if err != nil {
			return err
		}
		return renderWebhook(c, hooks, ts, id, http.StatusOK, nil)
	}
}

// renderWebhook renders the page of webhook id with status; its edit form
// shows typed (with its errors), or the webhook as it is when typed is nil.
func renderWebhook(c echo.Context, hooks Webhooks, ts WebhookTeams, id int64, status int, typed *views.WebhookForm) error {
	by, err := webhookCaller(c, ts)
	if err != nil {
		return err
	}
	w, deliveries, err := hooks.Get(c.Request().Context(), by, id)
	if err != nil {
		return err
	}
	rows := make([]views.WebhookDeliveryRow, len(deliveries))
	for i, d := range deliveries {
		rows[i] = views.WebhookDeliveryRow{ID: d.ID, Event: string(d.Event), Status: d.Status, Attempts: d.Attempts,
			StatusCode: d.StatusCode, Error: d.Error, Duration: d.Duration, CreatedAt: d.CreatedAt,
			About: d.Deployment, AboutURL: "/deployments/" + url.PathEscape(d.Deployment)}
		if d.TaskID != nil {
			rows[i].About = fmt.Sprintf("task %d", *d.TaskID)
			rows[i].AboutURL = fmt.Sprintf("/deployments/%s/tasks/%d", url.PathEscape(d.Deployment), *d.TaskID)
		}
		if d.RedeliveryOf != nil {
			rows[i].RedeliveryOf = *d.RedeliveryOf
		}
		for _, a := range d.Log {
			rows[i].Log = append(rows[i].Log, views.WebhookAttemptRow{Number: a.Number, StatusCode: a.StatusCode, Error: a.Error,
				Duration: a.Duration, AttemptedAt: a.AttemptedAt})
		}
	}
	row := webhookRow(w)
	form := views.WebhookForm{URL: row.URL, Events: row.Events, Deployments: strings.Join(row.Deployments, ", "), Kinds: row.Kinds, Format: row.Format}
	if typed != nil {
		form = *typed
	}
	form.AllDeployments = by.MayManage(webhooks.Webhook{TeamID: w.TeamID})
	if !by.MayRetarget(w) {
		form.URL, form.URLFixedBy = w.URL, w.CreatedBy
	}
	return render(c, status, views.WebhookPage(views.WebhookProps{
		Page: page(c, "Webhook "+strconv.FormatInt(id, 10), views.NavWebhooks), Webhook: row, Deliveries: rows,
		Form: form, Choices: webhookChoices(), MayManage: by.MayManage(w),
	}))
}

// webhookID is the webhook id of the request's path.
func webhookID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, styrmin.Errorf(styrmin.ENOTFOUND, "There is no webhook %q.", c.Param("id"))
	}
	return id, nil
}
