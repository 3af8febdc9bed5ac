package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/webhooks"
)

// Webhooks is what the API's webhook operations need (webhooks.Store).
type Webhooks interface {
	Create(ctx context.Context, by webhooks.Caller, nw webhooks.NewWebhook) (webhooks.Webhook, error)
	List(ctx context.Context, by webhooks.Caller) ([]webhooks.Webhook, error)
	Get(ctx context.Context, by webhooks.Caller, id int64) (webhooks.Webhook, []webhooks.Delivery, error)
	Update(ctx context.Context, by webhooks.Caller, id int64, ch webhooks.WebhookChange) (webhooks.Webhook, error)
	Delete(ctx context.Context, by webhooks.Caller, id int64) error
	Redeliver(ctx context.Context, by webhooks.Caller, id, deliveryID int64) (webhooks.Delivery, error)
}

var _ Webhooks = (*webhooks.Store)(nil)

// webhookCaller is who calls a webhook operation, with their roles in their teams.
func (s *Server) webhookCaller(ctx context.Context) (webhooks.Caller, error) {
	access, err := s.Teams.AccessOf(ctx, httpx.APIUser(ctx))
	return webhooks.CallerOf(access), err
}

func (s *Server) ListWebhooks(ctx context.Context, _ oapi.ListWebhooksRequestObject) (oapi.ListWebhooksResponseObject, error) {
	by, err := s.webhookCaller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.Webhooks.List(ctx, by)
	if err != nil {
		return nil, err
	}
	items := make([]oapi.Webhook, len(list))
	for i, w := range list {
		items[i] = apiWebhookOf(w)
	}
	return oapi.ListWebhooks200JSONResponse{Items: items}, nil
}

func (s *Server) CreateWebhook(ctx context.Context, req oapi.CreateWebhookRequestObject) (oapi.CreateWebhookResponseObject, error) {
	b := req.Body
	nw := webhooks.NewWebhook{URL: b.Url, Secret: b.Secret, Events: make([]webhooks.Event, len(b.Events))}
	for i, e := range b.Events {
		nw.Events[i] = webhooks.Event(e)
	}
	if b.Deployments != nil {
		nw.Deployments = *b.Deployments
	}
	if b.Kinds != nil {
		nw.Kinds = *b.Kinds
	}
	if b.Format != nil {
		nw.Format = webhooks.Format(*b.Format)
	}
	if b.Team != nil {
		nw.Team = *b.Team
	}
	by, err := s.webhookCaller(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.Webhooks.Create(ctx, by, nw)
	if err != nil {
		return nil, err
	}
	return oapi.CreateWebhook201JSONResponse(apiWebhookOf(w)), nil
}

func (s *Server) GetWebhook(ctx context.Context, req oapi.GetWebhookRequestObject) (oapi.GetWebhookResponseObject, error) {
	by, err := s.webhookCaller(ctx)
	if err != nil {
		return nil, err
	}
	w, deliveries, err := s.Webhooks.Get(ctx, by, req.Id)
	if err != nil {
		return nil, err
	}
	a := apiWebhookOf(w)
	out := oapi.GetWebhook200JSONResponse{Id: a.Id, Url: a.Url, Events: a.Events, Deployments: a.Deployments, Kinds: a.Kinds,
		Format: a.Format, CreatedBy: a.CreatedBy, CreatedAt: a.CreatedAt, Team: a.Team, Deliveries: make([]oapi.WebhookDelivery, len(deliveries))}
	for i, d := range deliveries {
		out.Deliveries[i] = apiDeliveryOf(d)
	}
	return out, nil
}

func (s *Server) UpdateWebhook(ctx context.Context, req oapi.UpdateWebhookRequestObject) (oapi.UpdateWebhookResponseObject, error) {
	b := req.Body
	ch := webhooks.WebhookChange{URL: b.Url, Secret: b.Secret, Deployments: b.Deployments, Kinds: b.Kinds}
	if b.Events != nil {
		events := make([]webhooks.Event, len(*b.Events))
		for i, e := range *b.Events {
			events[i] = webhooks.Event(e)
		}
		ch.Events = &events
	}
	if b.Format != nil {
		format := webhooks.Format(*b.Format)
		ch.Format = &format
	}
	by, err := s.webhookCaller(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.Webhooks.Update(ctx, by, req.Id, ch)
	if err != nil {
		return nil, err
	}
	return oapi.UpdateWebhook200JSONResponse(apiWebhookOf(w)), nil
}

func (s *Server) DeleteWebhook(ctx context.Context, req oapi.DeleteWebhookRequestObject) (oapi.DeleteWebhookResponseObject, error) {
	by, err := s.webhookCaller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.Webhooks.Delete(ctx, by, req.Id); err != nil {
		return nil, err
	}
	return oapi.DeleteWebhook204Response{}, nil
}

func (s *Server) RedeliverWebhook(ctx context.Context, req oapi.RedeliverWebhookRequestObject) (oapi.RedeliverWebhookResponseObject, error) {
	by, err := s.webhookCaller(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.Webhooks.Redeliver(ctx, by, req.Id, req.Delivery)
	if err != nil {
		return nil, err
	}
	return oapi.RedeliverWebhook202JSONResponse(apiDeliveryOf(d)), nil
}

// apiWebhookOf is the API's view of a webhook.
func apiWebhookOf(w webhooks.Webhook) oapi.Webhook {
	events := make([]oapi.WebhookEvent, len(w.Events))
	for i, e := range w.Events {
		events[i] = oapi.WebhookEvent(e)
	}
	out := oapi.Webhook{Id: w.ID, Url: w.URL, Events: events, Deployments: w.Deployments, Kinds: w.Kinds,
		Format: oapi.WebhookFormat(w.Format), CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt}
	if w.Team != "" {
		out.Team = &w.Team
	}
	return out
}

// apiDeliveryOf is the API's view of a delivery.
func apiDeliveryOf(d webhooks.Delivery) oapi.WebhookDelivery {
	out := oapi.WebhookDelivery{Id: d.ID, TaskId: d.TaskID, Event: oapi.WebhookEvent(d.Event), Status: oapi.WebhookDeliveryStatus(d.Status),
		Attempts: d.Attempts, Error: d.Error, RedeliveryOf: d.RedeliveryOf, CreatedAt: d.CreatedAt, AttemptedAt: d.AttemptedAt}
	if d.StatusCode != 0 {
		out.StatusCode = &d.StatusCode
	}
	if d.AttemptedAt != nil {
		ms := int(d.Duration.Milliseconds())
		out.DurationMs = &ms
	}
	if d.Log != nil {
		log := make([]oapi.WebhookAttempt, len(d.Log))
		for i, a := range d.Log {
			log[i] = oapi.WebhookAttempt{Attempt: a.Number, Error: a.Error, DurationMs: int(a.Duration.Milliseconds()), AttemptedAt: a.AttemptedAt}
			if a.StatusCode != 0 {
				log[i].StatusCode = &a.StatusCode
			}
		}
		out.AttemptLog = &log
	}
	return out
}
