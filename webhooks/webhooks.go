// Package webhooks tells HTTP endpoints of tasks that start and end: admins
// (and operators, for the deployments they name, and a team's admins, for
// their team's deployments) subscribe a URL to task events, filtered by
// deployment and kind. Each event queues one delivery
// per matching webhook in the transaction of the task's change (TaskEvents,
// the executor's Events); a River worker (Deliverer) POSTs it, signed with
// the webhook's secret over its id, the time it is sent and its body (which
// receivers check with Verify), retrying with backoff, and logs every attempt.
package webhooks

import (
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/secrets"
)

// Event is what happened to a task or to a deployment's health.
type Event string

// The events a webhook may subscribe to: a task's start and end, and a
// deployment's turn to Degraded and back to Healthy.
const (
	Started             Event = "started"
	Succeeded           Event = "succeeded"
	Failed              Event = "failed"
	Canceled            Event = "canceled"
	DeploymentDegraded  Event = "deployment.degraded"
	DeploymentRecovered Event = "deployment.recovered"
)

// AllEvents lists the events in the order pages show them.
func AllEvents() []Event {
	return []Event{Started, Succeeded, Failed, Canceled, DeploymentDegraded, DeploymentRecovered}
}

// eventOf is the event of a task whose row just changed: none for a task
// that waits (queued again to resume).
func eventOf(task db.Task) (Event, bool) {
	switch task.Status {
	case executor.TaskRunning:
		return Started, true
	case executor.TaskSucceeded:
		return Succeeded, true
	case executor.TaskFailed:
		return Failed, true
	case executor.TaskCanceled:
		return Canceled, true
	}
	return "", false
}

// Format is how a delivery's body is written.
type Format string

// The formats: Styrmin's JSON document, or Slack's incoming-webhook message
// ({"text": ...}), which Slack, Mattermost and Rocket.Chat accept.
const (
	FormatJSON  Format = "json"
	FormatSlack Format = "slack"
)

// Formats lists the formats, the default first.
func Formats() []Format { return []Format{FormatJSON, FormatSlack} }

// Webhook is a subscription of a URL to task and deployment events. Its secret is never
// read back: it only signs deliveries.
type Webhook struct {
	ID     int64
	URL    string
	Events []Event
	// Deployments filters the tasks and deployments, Kinds the tasks; empty
	// means every one.
	Deployments []string
	Kinds       []string
	Format      Format
	CreatedBy   string
	CreatedAt   time.Time
	// TeamID and Team are the team whose deployments the webhook hears of,
	// and whose admins manage it; nil and "" for a global webhook (of every
	// team, an admin's or operator's).
	TeamID *int64
	Team   string
}

// webhookOf is the Webhook of its row, of the team named team (NULL: none).
func webhookOf(row db.Webhook, team pgtype.Text) Webhook {
	events := make([]Event, len(row.Events))
	for i, e := range row.Events {
		events[i] = Event(e)
	}
	return Webhook{ID: row.ID, URL: row.Url, Events: events, Deployments: row.Deployments, Kinds: row.Kinds,
		Format: Format(row.Format), CreatedBy: row.CreatedBy, CreatedAt: row.CreatedAt, TeamID: row.TeamID, Team: team.String}
}

// PerDeployment reports whether the webhook is filtered to deployments: only
// such webhooks are an operator's to manage.
func (w Webhook) PerDeployment() bool { return len(w.Deployments) > 0 }

// Subscribes reports whether the webhook hears of event.
func (w Webhook) Subscribes(event Event) bool { return slices.Contains(w.Events, event) }

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one event sent (or being sent) to a webhook, as its last
// attempt left it.
type Delivery struct {
	ID        int64
	WebhookID int64
	// TaskID is the task of a task's event; nil for a deployment's.
	TaskID *int64
	// Deployment is the deployment's name (in a webhook's log only).
	Deployment string
	Event      Event
	// Status is DeliveryPending (attempts go on), DeliveryDelivered or DeliveryFailed.
	Status   string
	Attempts int
	// StatusCode is the receiver's answer to the last attempt, 0 when none came.
	StatusCode int
	// Error says why the last attempt failed ("" when it did not).
	Error string
	// Duration is how long the last attempt took.
	Duration time.Duration
	// RedeliveryOf is the delivery this one sends again, if any.
	RedeliveryOf *int64
	CreatedAt    time.Time
	AttemptedAt  *time.Time
	// Log is every attempt, oldest first (in a webhook's log only).
	Log []Attempt
}

// Attempt is one try at sending a delivery.
type Attempt struct {
	// Number counts the delivery's attempts from 1.
	Number int
	// StatusCode is the receiver's answer, 0 when none came.
	StatusCode int
	// Error says why the attempt failed ("" when it did not).
	Error       string
	Duration    time.Duration
	AttemptedAt time.Time
}

// attemptOf is the Attempt of its row.
func attemptOf(row db.WebhookDeliveryAttempt) Attempt {
	return Attempt{Number: int(row.Attempt), StatusCode: int(row.StatusCode.Int32), Error: row.Error,
		Duration: time.Duration(row.DurationMs) * time.Millisecond, AttemptedAt: row.AttemptedAt}
}

// deliveryOf is the Delivery of its row.
func deliveryOf(row db.WebhookDelivery) Delivery {
	return Delivery{ID: row.ID, WebhookID: row.WebhookID, TaskID: row.TaskID, Event: Event(row.Event), Status: row.Status,
		Attempts: int(row.Attempts), StatusCode: int(row.StatusCode.Int32), Error: row.Error,
		Duration: time.Duration(row.DurationMs.Int32) * time.Millisecond, RedeliveryOf: row.RedeliveryOf,
		CreatedAt: row.CreatedAt, AttemptedAt: row.AttemptedAt}
}

// secretAt is where a webhook's sealed secret is kept.
func secretAt(id int64) secrets.Place { return secrets.At("webhooks", "secret", id) }
