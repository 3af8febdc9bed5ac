package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/views"
	"github.com/styrmin/styrmin/webhooks"
)

const webhookSecret = "a-webhook-secret-of-32-characters"

func TestAnAdminAddsAWebhookOnItsPage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)

	rec := a.Request(admin, http.MethodPost, "/webhooks", url.Values{"url": {"https://hooks.example/styrmin"}, "secret": {webhookSecret},
		"events": {"failed", "canceled"}, "deployments": {"shop, blog"}, "kinds": {"upgrade"}, "format": {"slack"}})

	require.Equal(t, []string{"The webhook is added: it hears of tasks from now on."}, a.Flashes(t, admin, rec))
	list, err := a.Webhooks.List(context.Background(), webhooks.Caller{Username: "root", Role: auth.Admin})
	require.NoError(t, err)
	require.Len(t, list, 1)
	w := list[0]
	require.Equal(t, views.WebhookURL(w.ID), rec.Header().Get("Location"))
	require.Equal(t, []webhooks.Event{"canceled", "failed"}, w.Events)
	require.Equal(t, []string{"blog", "shop"}, w.Deployments)
	require.Equal(t, []string{"upgrade"}, w.Kinds)
	require.Equal(t, webhooks.FormatSlack, w.Format)
	page := a.Request(admin, http.MethodGet, views.WebhookURL(w.ID), nil)
	require.NotContains(t, page.Body.String(), webhookSecret)
	doc := handlerstest.Parse(t, page)
	require.Equal(t, "https://hooks.example/styrmin", handlerstest.Text(doc.Find(`[data-testid="webhook-url"]`)))
	require.Equal(t, "canceled, failed", handlerstest.Text(doc.Find(`[data-testid="events"]`)))
	require.NotEmpty(t, doc.Find(`[data-testid="no-deliveries"]`).Nodes)
	doc = handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/webhooks", nil))
	require.Equal(t, "Webhooks", handlerstest.Text(doc.Find(`nav [aria-current="page"]`)))
	require.Equal(t, "blog, shop", handlerstest.Text(doc.Find(`[data-testid="deployments"]`)))
}

func TestARefusedWebhookShowsTheFormAgainWithoutItsSecret(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	operator, _ := a.As(t, "olga", auth.Operator)

	rec := a.Request(operator, http.MethodPost, "/webhooks", url.Values{"url": {"https://hooks.example/x"}, "secret": {webhookSecret},
		"events": {"failed"}}, "HX-Request", "true")

	require.Equal(t, http.StatusForbidden, rec.Code)
	require.NotContains(t, rec.Body.String(), webhookSecret)
	doc := handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="form-error"]`)), "Operators manage webhooks of named deployments only")
	require.Equal(t, "https://hooks.example/x", doc.Find(`[data-testid="url"]`).AttrOr("value", ""))
	_, checked := doc.Find(`[data-testid="event-failed"]`).Attr("checked")
	require.True(t, checked, "the events chosen stay chosen")

	rec = a.Request(operator, http.MethodPost, "/webhooks", url.Values{"url": {"https://hooks.example/x"}, "secret": {"short"},
		"events": {"failed"}, "deployments": {"shop"}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-secret"]`)), "at least 16 characters")
	require.Equal(t, "shop", doc.Find(`[data-testid="deployments"]`).AttrOr("value", ""))
}

// TestReadOnlyUsersHaveNoWebhookPages: a read-only user of no team finds
// the Webhooks page empty, with no form, and may add none.
func TestReadOnlyUsersHaveNoWebhookPages(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, _ := a.As(t, "rita", auth.ReadOnly)
	_, err := a.Webhooks.Create(context.Background(), webhooks.Caller{Username: "root", Role: auth.Admin},
		webhooks.NewWebhook{URL: "https://hooks.example/all", Secret: webhookSecret, Events: []webhooks.Event{webhooks.Failed}})
	require.NoError(t, err)

	rec := a.Request(reader, http.MethodGet, "/webhooks", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.NotEmpty(t, doc.Find(`[data-testid="no-webhooks"]`).Nodes, "an admin's webhook is not listed")
	require.Empty(t, doc.Find(`[data-testid="new-webhook-form"]`).Nodes)
	rec = a.Request(reader, http.MethodPost, "/webhooks", url.Values{"url": {"https://hooks.example/x"}, "secret": {webhookSecret},
		"events": {"failed"}, "deployments": {"shop"}})
	require.Equal(t, http.StatusForbidden, rec.Code)
}

// TestAWebhookIsEditedOnItsPage: the page's form shows the webhook (never
// its secret); saving it changes the webhook and keeps the secret when none
// is typed; a refused change shows the form again as typed with its error.
func TestAWebhookIsEditedOnItsPage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	operator, _ := a.As(t, "olga", auth.Operator)
	olga := webhooks.Caller{Username: "olga", Role: auth.Operator}
	w, err := a.Webhooks.Create(context.Background(), olga, webhooks.NewWebhook{URL: "https://hooks.example/shop", Secret: webhookSecret,
		Events: []webhooks.Event{webhooks.Failed}, Deployments: []string{"shop"}})
	require.NoError(t, err)

	page := a.Request(operator, http.MethodGet, views.WebhookURL(w.ID), nil)
	require.NotContains(t, page.Body.String(), webhookSecret)
	form := handlerstest.Parse(t, page).Find(`[data-testid="edit-webhook-form"]`)
	require.Equal(t, "https://hooks.example/shop", form.Find(`[data-testid="url"]`).AttrOr("value", ""))
	require.Equal(t, "shop", form.Find(`[data-testid="deployments"]`).AttrOr("value", ""))
	require.Equal(t, 1, form.Find(`[data-testid="event-failed"][checked]`).Length())
	require.Empty(t, form.Find(`[data-testid="secret"]`).AttrOr("value", ""))

	rec := a.Request(operator, http.MethodPost, views.WebhookURL(w.ID), url.Values{"url": {"https://hooks.example/v2"}, "secret": {""},
		"events": {"failed", "succeeded"}, "deployments": {"shop blog"}, "format": {"json"}})
	require.Equal(t, []string{"The webhook is saved."}, a.Flashes(t, operator, rec))
	saved, _, err := a.Webhooks.Get(context.Background(), olga, w.ID)
	require.NoError(t, err)
	require.Equal(t, "https://hooks.example/v2", saved.URL)
	require.Equal(t, []string{"blog", "shop"}, saved.Deployments)
	require.Equal(t, []webhooks.Event{webhooks.Failed, webhooks.Succeeded}, saved.Events)

	rec = a.Request(operator, http.MethodPost, views.WebhookURL(w.ID), url.Values{"url": {"https://hooks.example/v3"}, "secret": {"short"},
		"events": {"failed"}, "deployments": {"shop"}, "format": {"json"}}, "HX-Request", "true")
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	require.NotContains(t, rec.Body.String(), `value="short"`, "the secret typed is not sent back")
	doc := handlerstest.Parse(t, rec)
	require.NotEmpty(t, handlerstest.Text(doc.Find(`[data-testid="error-secret"]`)))
	require.Equal(t, "https://hooks.example/v3", doc.Find(`[data-testid="edit-webhook-form"] [data-testid="url"]`).AttrOr("value", ""), "the form shows what was typed")
	_, open := doc.Find(`[data-testid="edit-webhook"]`).Attr("open")
	require.True(t, open, "the refused form stays open")
	kept, _, err := a.Webhooks.Get(context.Background(), olga, w.ID)
	require.NoError(t, err)
	require.Equal(t, "https://hooks.example/v2", kept.URL)
}

// TestAnOperatorCannotRetargetAnAdminsWebhookAndRedeliverItsHistory is the
// attack through the pages: an operator, who may edit and redeliver a
// webhook of named deployments, posts the edit form of one an admin made
// with the URL of a server of theirs (or a secret of theirs), then
// redelivers its past delivery, to receive it and its signature. The
// changes are refused (a read-only user's too), the URL stays the admin's,
// and the redelivery goes there, signed with the admin's secret: the
// attacker's server hears nothing.
func TestAnOperatorCannotRetargetAnAdminsWebhookAndRedeliverItsHistory(t *testing.T) {
	t.Parallel()
	a := handlerstest.SetupDelivering(t)
	ctx := context.Background()
	receiver, attacker := handlerstest.NewReceiver(t, webhookSecret), handlerstest.NewReceiver(t, webhookSecret)
	root := webhooks.Caller{Username: "root", Role: auth.Admin}
	w, err := a.Webhooks.Create(ctx, root, webhooks.NewWebhook{URL: receiver.URL, Secret: webhookSecret,
		Events: []webhooks.Event{webhooks.Failed}, Deployments: []string{"shop"}})
	require.NoError(t, err)
	past := a.PastDelivery(t, w.ID, "shop")
	operator, _ := a.As(t, "olga", auth.Operator)
	reader, _ := a.As(t, "rita", auth.ReadOnly)
	edit := func(v handlerstest.Visitor, target, secret string) *httptest.ResponseRecorder {
		return a.Request(v, http.MethodPost, views.WebhookURL(w.ID), url.Values{"url": {target}, "secret": {secret},
			"events": {"failed"}, "deployments": {"shop"}, "format": {"json"}})
	}
	redeliver := fmt.Sprintf("%s/deliveries/%d/redeliver", views.WebhookURL(w.ID), past)

	rec := edit(operator, attacker.URL+"/collect", "")
	require.Equal(t, http.StatusForbidden, rec.Code, "a crafted form with another URL")
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="form-error"]`)),
		"Only root, who created this webhook, or an admin may change its URL or secret")
	require.Equal(t, http.StatusForbidden, edit(operator, receiver.URL, "the operator's own secret, long enough").Code, "a crafted form with a secret")
	require.Equal(t, http.StatusForbidden, edit(reader, attacker.URL, "").Code)
	require.Equal(t, http.StatusForbidden, a.Request(reader, http.MethodPost, redeliver, url.Values{}).Code)
	require.Contains(t, a.Flashes(t, operator, a.Request(operator, http.MethodPost, redeliver, url.Values{}))[0], "is queued",
		"the operator may still redeliver it: to the admin's URL")

	log := a.DeliveryLog(t, w.ID, 2)
	require.Equal(t, []handlerstest.Received{{Delivery: strconv.FormatInt(log[0].ID, 10), Signed: true}}, receiver.Received(),
		"the redelivery went to the admin's receiver, signed with the admin's secret")
	require.Empty(t, attacker.Received(), "nothing reached the attacker's server")
	kept, _, err := a.Webhooks.Get(ctx, root, w.ID)
	require.NoError(t, err)
	require.Equal(t, receiver.URL, kept.URL)

	form := handlerstest.Parse(t, a.Request(operator, http.MethodGet, views.WebhookURL(w.ID), nil)).Find(`[data-testid="edit-webhook-form"]`)
	_, readOnly := form.Find(`[data-testid="url"]`).Attr("readonly")
	require.True(t, readOnly, "the operator's form shows the URL, not a field to change it")
	require.Empty(t, form.Find(`[data-testid="secret"]`).Nodes, "nor a secret field")
	require.Contains(t, handlerstest.Text(form.Find(`[data-testid="retarget-hint"]`)), "Only root, who created it, or an admin")
	rec = edit(operator, receiver.URL, "")
	require.Equal(t, []string{"The webhook is saved."}, a.Flashes(t, operator, rec), "the operator may change the rest, the URL as it is")
}
