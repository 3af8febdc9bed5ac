package handlerstest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor/executortest"
	"github.com/styrmin/styrmin/webhooks"
)

// SetupDelivering is Setup whose worker runs: webhook deliveries are sent
// (and tasks fail, for it deploys nowhere).
func SetupDelivering(t *testing.T) *App {
	t.Helper()
	a := newApp(t, apptest.Options{Work: true})
	a.Start(t)
	return a
}

// PastDelivery gives webhook id the log of an earlier event: a task of a
// new deployment named deployment failed, and its delivery was delivered
// (the rows only, as a worker would have left them). It returns the
// delivery's id.
func (a *App) PastDelivery(t *testing.T, webhookID int64, deployment string) int64 {
	t.Helper()
	ctx := context.Background()
	q := db.New(a.Pool)
	driver := "past-" + deployment
	_, err := q.InsertDriverVersion(ctx, db.InsertDriverVersionParams{Name: driver, Version: "1.0.0", Title: "Past", Labels: []byte("{}"),
		Spec: []byte("{}"), Digest: "sha256:" + driver, Bundle: []byte{}})
	require.NoError(t, err)
	d, err := q.InsertDeployment(ctx, db.InsertDeploymentParams{Name: deployment, Namespace: deployment, DriverName: driver,
		DriverVersion: "1.0.0", AppVersion: "1.0.0", Parameters: []byte("{}"), CreatedBy: "olga"})
	require.NoError(t, err)
	task, err := q.InsertTask(ctx, db.InsertTaskParams{DeploymentID: d.ID, Kind: "upgrade", Inputs: []byte("{}"), CreatedBy: "olga"})
	require.NoError(t, err)
	body := fmt.Sprintf(`{"event":"failed","task_id":%d,"kind":"upgrade","deployment":%q,"status":"failed","message":"","created_by":"olga"}`,
		task.ID, deployment)
	delivery, err := q.InsertDelivery(ctx, db.InsertDeliveryParams{WebhookID: webhookID, DeploymentID: d.ID, TaskID: &task.ID, Event: "failed", Body: []byte(body)})
	require.NoError(t, err)
	require.NoError(t, q.RecordAttempt(ctx, db.RecordAttemptParams{ID: delivery.ID, Status: webhooks.DeliveryDelivered,
		StatusCode: pgtype.Int4{Int32: http.StatusOK, Valid: true}, DurationMs: pgtype.Int4{Int32: 5, Valid: true}}))
	return delivery.ID
}

// DeliveryLog waits until webhook id's log holds n deliveries, none of them
// pending, and returns it, newest first.
func (a *App) DeliveryLog(t *testing.T, id int64, n int) []webhooks.Delivery {
	t.Helper()
	return executortest.Wait(t, func(ctx context.Context) ([]webhooks.Delivery, error) {
		_, log, err := a.Webhooks.Get(ctx, webhooks.Caller{Username: "test", Role: auth.Admin}, id)
		return log, err
	}, func(log []webhooks.Delivery) bool {
		if len(log) != n {
			return false
		}
		for _, d := range log {
			if d.Status == webhooks.DeliveryPending {
				return false
			}
		}
		return true
	})
}

// Receiver is an HTTP endpoint on loopback that answers 200 to every
// request and records the webhook deliveries it was sent.
type Receiver struct {
	*httptest.Server
	secret   []byte
	mu       sync.Mutex
	received []Received
}

// Received is a delivery a Receiver was sent.
type Received struct {
	// Delivery is its id (X-Styrmin-Delivery).
	Delivery string
	// Signed says whether it is signed with the Receiver's secret, and recent (webhooks.Verify).
	Signed bool
}

// NewReceiver starts a Receiver that checks signatures with secret, until
// the test ends.
func NewReceiver(t *testing.T, secret string) *Receiver {
	t.Helper()
	r := &Receiver{secret: []byte(secret)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		got := Received{Delivery: req.Header.Get(webhooks.DeliveryHeader),
			Signed: webhooks.Verify(r.secret, req.Header, body, webhooks.MaxAge) == nil}
		r.mu.Lock()
		r.received = append(r.received, got)
		r.mu.Unlock()
	}))
	t.Cleanup(r.Close)
	return r
}

// Received is what the Receiver was sent so far, in turn.
func (r *Receiver) Received() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received{}, r.received...)
}
