package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// newWebhook is a webhook to create through the API, for deployments.
func newWebhook(names ...string) oapi.NewWebhook {
	deployments := append([]string{}, names...)
	return oapi.NewWebhook{Url: "https://hooks.example/styrmin", Secret: "a-webhook-secret-of-32-characters",
		Events: []oapi.WebhookEvent{oapi.WebhookEventFailed, oapi.WebhookEventSucceeded}, Deployments: &deployments}
}

func TestAPICreatesListsReadsAndDeletesWebhooks(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "root", auth.Admin)
	slack := oapi.Slack
	body := newWebhook()
	body.Format = &slack

	rec := a.Call(t, admin, http.MethodPost, "/api/v1/webhooks", body)

	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.NotContains(t, rec.Body.String(), body.Secret, "the secret is never shown")
	var created oapi.Webhook
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &created))
	require.Equal(t, []oapi.WebhookEvent{"failed", "succeeded"}, created.Events)
	require.Equal(t, []string{}, created.Deployments)
	require.Equal(t, oapi.Slack, created.Format)
	require.Equal(t, "root", created.CreatedBy)

	rec = a.Call(t, admin, http.MethodGet, "/api/v1/webhooks", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotContains(t, rec.Body.String(), body.Secret)
	var list struct{ Items []oapi.Webhook }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	require.Len(t, list.Items, 1)

	one := fmt.Sprintf("/api/v1/webhooks/%d", created.Id)
	rec = a.Call(t, admin, http.MethodGet, one, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	var got oapi.WebhookWithDeliveries
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	require.Equal(t, created.Url, got.Url)
	require.Empty(t, got.Deliveries)

	require.Equal(t, http.StatusNoContent, a.Call(t, admin, http.MethodDelete, one, nil).Code)
	require.Equal(t, http.StatusNotFound, a.Call(t, admin, http.MethodGet, one, nil).Code)
	rec = a.Call(t, admin, http.MethodPost, one+"/deliveries/1/redeliver", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
}

// TestAPIKeepsWebhooksFromReadOnlyUsersAndOperatorsToTheirDeployments: a
// read-only user of no team lists no webhook, makes none (403) and is told
// an admin's does not exist; an operator manages webhooks of named
// deployments only.
func TestAPIKeepsWebhooksFromReadOnlyUsersAndOperatorsToTheirDeployments(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "root", auth.Admin)
	operator := a.TokenFor(t, "olga", auth.Operator)
	reader := a.TokenFor(t, "rita", auth.ReadOnly)
	rec := a.Call(t, admin, http.MethodPost, "/api/v1/webhooks", newWebhook())
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var everywhere oapi.Webhook
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &everywhere))

	rec = a.Call(t, reader, http.MethodGet, "/api/v1/webhooks", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"items": []}`, rec.Body.String())
	require.Equal(t, http.StatusForbidden, a.Call(t, reader, http.MethodPost, "/api/v1/webhooks", newWebhook("shop")).Code)
	require.Equal(t, http.StatusNotFound, a.Call(t, reader, http.MethodGet, fmt.Sprintf("/api/v1/webhooks/%d", everywhere.Id), nil).Code)

	rec = a.Call(t, operator, http.MethodPost, "/api/v1/webhooks", newWebhook())
	require.Equal(t, http.StatusForbidden, rec.Code, "an operator's webhook for every deployment")
	require.Contains(t, rec.Body.String(), "Operators manage webhooks of named deployments only")
	require.Equal(t, http.StatusCreated, a.Call(t, operator, http.MethodPost, "/api/v1/webhooks", newWebhook("shop")).Code)
	require.Equal(t, http.StatusForbidden, a.Call(t, operator, http.MethodDelete, fmt.Sprintf("/api/v1/webhooks/%d", everywhere.Id), nil).Code)
	rec = a.Call(t, operator, http.MethodGet, "/api/v1/webhooks", nil)
	var list struct{ Items []oapi.Webhook }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	require.Len(t, list.Items, 1)
	require.Equal(t, []string{"shop"}, list.Items[0].Deployments)
}

func TestAPIRefusesABadWebhookAsAProblem(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	body := newWebhook()
	body.Url = "ftp://hooks.example/"

	rec := a.Call(t, a.TokenFor(t, "root", auth.Admin), http.MethodPost, "/api/v1/webhooks", body)

	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, rec.Body.String(), "The URL must start with https://")
}

// TestAPIEditsAWebhook: PATCH changes the fields given, replaces the secret
// without ever showing it, refuses bad input as a problem and an operator's
// attempt to make a webhook for every deployment, and is audited.
func TestAPIEditsAWebhook(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	operator := a.TokenFor(t, "olga", auth.Operator)
	rec := a.Call(t, operator, http.MethodPost, "/api/v1/webhooks", newWebhook("shop"))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var created oapi.Webhook
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &created))
	one := fmt.Sprintf("/api/v1/webhooks/%d", created.Id)

	secret := "a replacement secret, long enough"
	rec = a.Call(t, operator, http.MethodPatch, one, map[string]any{"url": "https://hooks.example/v2", "events": []string{"canceled"}, "secret": secret})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NotContains(t, rec.Body.String(), secret, "the secret is never shown back")
	var changed oapi.Webhook
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &changed))
	require.Equal(t, "https://hooks.example/v2", changed.Url)
	require.Equal(t, []oapi.WebhookEvent{"canceled"}, changed.Events)
	require.Equal(t, []string{"shop"}, changed.Deployments, "fields not given stay")

	rec = a.Call(t, operator, http.MethodPatch, one, map[string]any{"url": "ftp://nowhere"})
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "https://")
	rec = a.Call(t, operator, http.MethodPatch, one, map[string]any{"deployments": []string{}})
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	require.Equal(t, http.StatusNotFound, a.Call(t, operator, http.MethodPatch, "/api/v1/webhooks/999999", map[string]any{"url": "https://x.example"}).Code)

	page, err := a.Audit.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{Action: "webhook.update"})
	require.NoError(t, err)
	outcomes := []audit.Outcome{}
	for _, e := range page.Entries {
		outcomes = append(outcomes, e.Outcome)
	}
	require.Equal(t, []audit.Outcome{audit.Refused, audit.Refused, audit.Refused, audit.Allowed}, outcomes, "each edit leaves one entry")
	require.Equal(t, strconv.FormatInt(created.Id, 10), page.Entries[3].Target.Name)
}

// TestAPIRefusesAnOperatorRetargetingAnAdminsWebhook is the attack through
// the API: an operator's token PATCHes the URL of a webhook an admin made
// (for a named deployment, so the operator may edit it) to a server of
// theirs, or its secret to one of theirs, then redelivers its past
// delivery. Both changes are refused (403, audited as refused; a read-only
// token's too), the URL stays the admin's, and the redelivery goes there:
// the attacker's server hears nothing.
func TestAPIRefusesAnOperatorRetargetingAnAdminsWebhook(t *testing.T) {
	t.Parallel()
	a := handlerstest.SetupDelivering(t)
	const secret = "a-webhook-secret-of-32-characters"
	receiver, attacker := handlerstest.NewReceiver(t, secret), handlerstest.NewReceiver(t, secret)
	admin := a.TokenFor(t, "root", auth.Admin)
	operator := a.TokenFor(t, "olga", auth.Operator)
	reader := a.TokenFor(t, "rita", auth.ReadOnly)
	body := newWebhook("shop")
	body.Url, body.Secret = receiver.URL, secret
	rec := a.Call(t, admin, http.MethodPost, "/api/v1/webhooks", body)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var w oapi.Webhook
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &w))
	past := a.PastDelivery(t, w.Id, "shop")
	one := fmt.Sprintf("/api/v1/webhooks/%d", w.Id)
	redeliver := fmt.Sprintf("%s/deliveries/%d/redeliver", one, past)

	rec = a.Call(t, operator, http.MethodPatch, one, map[string]any{"url": attacker.URL + "/collect"})
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "Only root, who created this webhook, or an admin may change its URL or secret")
	rec = a.Call(t, operator, http.MethodPatch, one, map[string]any{"secret": "the operator's own secret, long enough"})
	require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
	require.Equal(t, http.StatusForbidden, a.Call(t, reader, http.MethodPatch, one, map[string]any{"url": attacker.URL}).Code)
	require.Equal(t, http.StatusForbidden, a.Call(t, reader, http.MethodPost, redeliver, nil).Code)
	rec = a.Call(t, operator, http.MethodPost, redeliver, nil)
	require.Equal(t, http.StatusAccepted, rec.Code, "the operator may still redeliver it: to the admin's URL")
	var again oapi.WebhookDelivery
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &again))

	a.DeliveryLog(t, w.Id, 2)
	require.Equal(t, []handlerstest.Received{{Delivery: strconv.FormatInt(again.Id, 10), Signed: true}}, receiver.Received(),
		"the redelivery went to the admin's receiver, signed with the admin's secret")
	require.Empty(t, attacker.Received(), "nothing reached the attacker's server")
	rec = a.Call(t, admin, http.MethodGet, one, nil)
	var kept oapi.WebhookWithDeliveries
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &kept))
	require.Equal(t, receiver.URL, kept.Url)

	page, err := a.Audit.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{Action: "webhook.update"})
	require.NoError(t, err)
	require.Len(t, page.Entries, 3, "each refused change is in the audit log")
	for _, e := range page.Entries {
		require.Equal(t, audit.Refused, e.Outcome)
	}
	rec = a.Call(t, operator, http.MethodPatch, one, map[string]any{"url": receiver.URL, "events": []string{"canceled"}})
	require.Equal(t, http.StatusOK, rec.Code, "the operator may change the rest, the URL as it is: %s", rec.Body.String())
}
