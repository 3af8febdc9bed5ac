package webhooks

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/health"
)

// turn records a turn of deployment name's health, as the deployment
// service does when it reads one, and returns its deployment's id.
func (b bundle) turn(t *testing.T, name string, turn health.Turn, a health.Assessment) int64 {
	t.Helper()
	ctx := context.Background()
	d, err := b.q.InsertDeployment(ctx, db.InsertDeploymentParams{Name: name, Namespace: name, DriverName: "demo",
		DriverVersion: "1.0.0", AppVersion: "1.0.0", Parameters: []byte("{}"), CreatedBy: "test"})
	require.NoError(t, err)
	events := &DeploymentEvents{BaseURL: "https://styrmin.example/", Jobs: b.queue}
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		return events.HealthTurned(ctx, tx, health.Turned{Turn: turn, DeploymentID: d.ID, Deployment: name, Driver: "demo",
			Assessment: a, At: time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)})
	}))
	return d.ID
}

func TestADegradedTurnIsDeliveredToTheWebhooksThatSubscribeToIt(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	rcv := newReceiver(t)
	ctx := context.Background()
	subscribed, err := b.store.Create(ctx, admin, NewWebhook{URL: rcv.URL, Secret: testSecret, Events: []Event{DeploymentDegraded, Failed},
		Deployments: []string{"shop"}, Kinds: []string{"install"}})
	require.NoError(t, err)
	slack, err := b.store.Create(ctx, admin, NewWebhook{URL: rcv.URL + "/slack", Secret: testSecret, Events: []Event{DeploymentDegraded}, Format: FormatSlack})
	require.NoError(t, err)
	unsubscribed := b.webhook(t, rcv.URL, Started, Succeeded, Failed, Canceled, DeploymentRecovered)
	otherDeployment, err := b.store.Create(ctx, admin, NewWebhook{URL: rcv.URL, Secret: testSecret, Events: []Event{DeploymentDegraded}, Deployments: []string{"blog"}})
	require.NoError(t, err)

	b.turn(t, "shop", health.TurnDegraded, health.Assessment{Word: health.Degraded,
		Reasons: []string{"pod shop-0: CrashLoopBackOff", "password=hunter2-is-secret"}})

	list := b.deliveries(t, subscribed.ID, 1)
	require.Equal(t, DeploymentDegraded, list[0].Event)
	require.Nil(t, list[0].TaskID, "a deployment's event has no task")
	require.Equal(t, "shop", list[0].Deployment)
	require.Equal(t, DeliveryDelivered, list[0].Status)
	require.Len(t, b.deliveries(t, slack.ID, 1), 1)
	for _, w := range []Webhook{unsubscribed, otherDeployment} {
		_, none, err := b.store.Get(ctx, admin, w.ID)
		require.NoError(t, err)
		require.Empty(t, none, "webhook %d (%v, %v)", w.ID, w.Events, w.Deployments)
	}

	var p HealthPayload
	var text slackMessage
	for _, req := range rcv.got() {
		require.NoError(t, Verify([]byte(testSecret), req.header, req.body, MaxAge))
		require.Equal(t, string(DeploymentDegraded), req.header.Get(EventHeader))
		if req.header.Get(DeliveryHeader) == strconv.FormatInt(list[0].ID, 10) {
			require.NoError(t, json.Unmarshal(req.body, &p))
		} else {
			require.NoError(t, json.Unmarshal(req.body, &text))
		}
	}
	require.Equal(t, HealthPayload{Event: DeploymentDegraded, Deployment: "shop", Driver: "demo", Health: health.Degraded,
		Reasons: []string{"pod shop-0: CrashLoopBackOff", "password=<redacted>"}, At: time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC),
		URL: "https://styrmin.example/deployments/shop"}, p)
	require.Equal(t, "Deployment <https://styrmin.example/deployments/shop|shop> (demo) turned Degraded: pod shop-0: CrashLoopBackOff; password=&lt;redacted&gt;", text.Text, "escaped for Slack")

	again, err := b.store.Redeliver(ctx, admin, subscribed.ID, list[0].ID)
	require.NoError(t, err, "a deployment's delivery is redelivered as a task's is")
	require.Nil(t, again.TaskID)
	require.Equal(t, "shop", b.deliveries(t, subscribed.ID, 2)[1].Deployment)
}

func TestARecoveryIsItsOwnEvent(t *testing.T) {
	t.Parallel()
	b := setup(t, succeed, nil)
	rcv := newReceiver(t)
	degraded := b.webhook(t, rcv.URL, DeploymentDegraded)
	recovered := b.webhook(t, rcv.URL, DeploymentRecovered)

	b.turn(t, "shop", health.TurnRecovered, health.Assessment{Word: health.Healthy})

	require.Equal(t, DeploymentRecovered, b.deliveries(t, recovered.ID, 1)[0].Event)
	_, none, err := b.store.Get(context.Background(), admin, degraded.ID)
	require.NoError(t, err)
	require.Empty(t, none)
	var p HealthPayload
	require.NoError(t, json.Unmarshal(rcv.got()[0].body, &p))
	require.Equal(t, health.Healthy, p.Health)
	require.Equal(t, []string{}, p.Reasons)
}

func TestAReadOnlyUserCannotSubscribeToADeploymentsHealth(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	reader := Caller{Username: "rita", Role: auth.ReadOnly}
	_, err := s.Create(context.Background(), reader, NewWebhook{URL: "https://hooks.example/x", Secret: testSecret,
		Events: []Event{DeploymentDegraded, DeploymentRecovered}, Deployments: []string{"shop"}})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err))
	operator := Caller{Username: "olga", Role: auth.Operator}
	_, err = s.Create(context.Background(), operator, NewWebhook{URL: "https://hooks.example/x", Secret: testSecret,
		Events: []Event{DeploymentDegraded}})
	require.Equal(t, styrmin.EFORBIDDEN, styrmin.ErrorCode(err), "nor an operator to every deployment's")
	_, err = s.Create(context.Background(), operator, NewWebhook{URL: "https://hooks.example/x", Secret: testSecret,
		Events: []Event{"deployment.exploded"}, Deployments: []string{"shop"}})
	require.ErrorContains(t, err, `There is no event "deployment.exploded": choose among started, succeeded, failed, canceled, deployment.degraded, deployment.recovered.`)
}
