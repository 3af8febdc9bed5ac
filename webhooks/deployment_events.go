package webhooks

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/redact"
)

// DeploymentEvents queues a delivery to every webhook that subscribes to a
// deployment's turn of health (the deployment service's HealthEvents), in
// the transaction that records the turn: once per turn, whatever the number
// of processes that read the deployment's health.
type DeploymentEvents struct {
	// BaseURL is Styrmin's public URL, for the link to the deployment's page ("": none).
	BaseURL string
	// Jobs queues the deliveries' jobs (the executor).
	Jobs executor.JobInserter
}

// eventOfTurn is the event of a turn of health.
var eventOfTurn = map[health.Turn]Event{health.TurnDegraded: DeploymentDegraded, health.TurnRecovered: DeploymentRecovered}

// HealthTurned queues one delivery per webhook that subscribes to the
// turn's event on its deployment (a webhook's task kinds do not filter it):
// the global ones and its team's.
func (e *DeploymentEvents) HealthTurned(ctx context.Context, tx pgx.Tx, t health.Turned) error {
	event, ok := eventOfTurn[t.Turn]
	if !ok {
		return fmt.Errorf("webhooks: no event of the turn %q of %s", t.Turn, t.Deployment)
	}
	hooks, err := db.New(tx).WebhooksFor(ctx, db.WebhooksForParams{Event: string(event), DeploymentID: t.DeploymentID, Deployment: t.Deployment})
	if err != nil {
		return fmt.Errorf("webhooks: webhooks of %s: %w", t.Deployment, err)
	}
	return queueDeliveries(ctx, tx, e.Jobs, hooks, healthPayloadOf(event, t, e.BaseURL),
		db.InsertDeliveryParams{DeploymentID: t.DeploymentID, Event: string(event)})
}

// HealthPayload is the JSON document a delivery of a deployment's event in
// FormatJSON carries.
type HealthPayload struct {
	Event      Event  `json:"event"`
	Deployment string `json:"deployment"`
	Driver     string `json:"driver"`
	// Health is the word read: Degraded, or Healthy again.
	Health health.Word `json:"health"`
	// Reasons say why (none when Healthy), the deployment's secrets replaced with <redacted>.
	Reasons []string `json:"reasons"`
	// At is when the cluster was read.
	At time.Time `json:"at"`
	// URL is the deployment's page, when Styrmin knows its own public URL.
	URL string `json:"url,omitempty"`
}

// healthPayloadOf is the payload of event for turn t. The reasons are those
// the deployment's redactor wrote, and go through the common forms of
// secrets once more here.
func healthPayloadOf(event Event, t health.Turned, baseURL string) HealthPayload {
	p := HealthPayload{Event: event, Deployment: t.Deployment, Driver: t.Driver, Health: t.Word, Reasons: []string{}, At: t.At}
	r := redact.New()
	for _, reason := range t.Reasons {
		p.Reasons = append(p.Reasons, r.String(reason))
	}
	if baseURL != "" {
		p.URL = fmt.Sprintf("%s/deployments/%s", strings.TrimSuffix(baseURL, "/"), url.PathEscape(t.Deployment))
	}
	return p
}

// slackText says what became of the deployment, linking its page when there is one.
func (p HealthPayload) slackText() string {
	name := slackEscape(p.Deployment)
	if p.URL != "" {
		name = fmt.Sprintf("<%s|%s>", p.URL, name)
	}
	text := fmt.Sprintf("Deployment %s (%s) turned %s", name, slackEscape(p.Driver), p.Health)
	if len(p.Reasons) > 0 {
		text += ": " + slackEscape(strings.Join(p.Reasons, "; "))
	}
	return text
}
