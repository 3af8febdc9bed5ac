package web

import (
	"context"
	"net/http"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
	"github.com/styrmin/styrmin/webhooks"
)

// Webhooks is what the webhook pages need (webhooks.Store).
type Webhooks interface {
	Create(ctx context.Context, by webhooks.Caller, nw webhooks.NewWebhook) (webhooks.Webhook, error)
	List(ctx context.Context, by webhooks.Caller) ([]webhooks.Webhook, error)
	Get(ctx context.Context, by webhooks.Caller, id int64) (webhooks.Webhook, []webhooks.Delivery, error)
	Update(ctx context.Context, by webhooks.Caller, id int64, ch webhooks.WebhookChange) (webhooks.Webhook, error)
	Delete(ctx context.Context, by webhooks.Caller, id int64) error
	Redeliver(ctx context.Context, by webhooks.Caller, id, deliveryID int64) (webhooks.Delivery, error)
}

var _ Webhooks = (*webhooks.Store)(nil)

// WebhookTeams is what the webhook pages need of the teams (teams.Store):
// the user's roles in their teams, and every team's name for the form.
type WebhookTeams interface {
	AccessOf(ctx context.Context, u auth.User) (teams.Access, error)
	List(ctx context.Context) ([]teams.Team, error)
}

var _ WebhookTeams = (*teams.Store)(nil)

// WebhookList shows the webhooks the user sees and, to one who may make
// some, the form that adds one.
func WebhookList(hooks Webhooks, ts WebhookTeams) echo.HandlerFunc {
	return func(c echo.Context) error {
		return renderWebhooks(c, hooks, ts, http.StatusOK, views.WebhookForm{Format: string(webhooks.FormatJSON)})
	}
}

// webhookCaller is who reads and manages webhooks on this request, with
// their roles in their teams.
func webhookCaller(c echo.Context, ts WebhookTeams) (webhooks.Caller, error) {
	access, err := ts.AccessOf(c.Request().Context(), *httpx.CurrentUser(c))
	return webhooks.CallerOf(access), err
}

// renderWebhooks renders the Webhooks page with form (empty, or as typed with its errors).
func renderWebhooks(c echo.Context, hooks Webhooks, ts WebhookTeams, status int, form views.WebhookForm) error {
	ctx := c.Request().Context()
	by, err := webhookCaller(c, ts)
	if err != nil {
		return err
	}
	list, err := hooks.List(ctx, by)
	if err != nil {
		return err
	}
	rows := make([]views.WebhookRow, len(list))
	for i, w := range list {
		rows[i] = webhookRow(w)
	}
	choices := webhookChoices()
	var all []string
	if by.Role.AtLeast(auth.Operator) {
		every, err := ts.List(ctx)
		if err != nil {
			return err
		}
		for _, t := range every {
			all = append(all, t.Name)
		}
	}
	choices.Teams, choices.Global = by.TeamChoices(all)
	form.AllDeployments = by.Role.AtLeast(auth.Admin) || !choices.Global
	return render(c, status, views.WebhooksPage(views.WebhooksProps{
		Page: page(c, "Webhooks", views.NavWebhooks), Webhooks: rows, Form: form, Choices: choices,
	}))
}

// webhookChoices are the choices of a webhook's form, but for its teams.
func webhookChoices() views.WebhookChoices {
	choices := views.WebhookChoices{Kinds: deployment.TaskKinds()}
	for _, e := range webhooks.AllEvents() {
		choices.Events = append(choices.Events, string(e))
	}
	for _, f := range webhooks.Formats() {
		choices.Formats = append(choices.Formats, string(f))
	}
	return choices
}

// webhookFormOf reads a webhook's form as typed (but for its secret) and as
// the store takes it.
func webhookFormOf(c echo.Context) (views.WebhookForm, webhooks.NewWebhook, error) {
	form, err := c.FormParams()
	if err != nil {
		return views.WebhookForm{}, webhooks.NewWebhook{}, styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
	}
	typed := views.WebhookForm{URL: form.Get("url"), Events: form["events"], Deployments: form.Get("deployments"),
		Kinds: form["kinds"], Format: form.Get("format"), Team: form.Get("team")}
	nw := webhooks.NewWebhook{URL: typed.URL, Secret: form.Get("secret"), Kinds: typed.Kinds, Format: webhooks.Format(typed.Format), Team: typed.Team,
		Deployments: strings.FieldsFunc(typed.Deployments, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })}
	for _, e := range typed.Events {
		nw.Events = append(nw.Events, webhooks.Event(e))
	}
	return typed, nw, nil
}

// refusedForm is the status and form of a webhook's form that the store
// refused (EINVALID, EFORBIDDEN), ok false for any other error.
func refusedForm(typed views.WebhookForm, err error) (int, views.WebhookForm, bool) {
	switch styrmin.ErrorCode(err) {
	case styrmin.EINVALID:
		typed.Error, typed.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
		return http.StatusUnprocessableEntity, typed, true
	case styrmin.EFORBIDDEN:
		typed.Error, typed.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
		return http.StatusForbidden, typed, true
	}
	return 0, typed, false
}

// webhookRow is a webhook as the pages show it.
func webhookRow(w webhooks.Webhook) views.WebhookRow {
	events := make([]string, len(w.Events))
	for i, e := range w.Events {
		events[i] = string(e)
	}
	return views.WebhookRow{ID: w.ID, URL: w.URL, Events: events, Deployments: w.Deployments, Kinds: w.Kinds,
		Format: string(w.Format), CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, Team: w.Team}
}
