package webhooks

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/riverqueue/river"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
)

// TaskEvents queues a delivery to every webhook that subscribes to a task's
// change (the executor's Events), in the transaction of the change.
type TaskEvents struct {
	// BaseURL is Styrmin's public URL, for the link to the task's page ("": none).
	BaseURL string
}

var _ executor.Events = (*TaskEvents)(nil)

// TaskChanged queues one delivery per webhook that subscribes to task's
// event, for a task of its kind on one of its deployments: the global
// webhooks and those of the deployment's team.
func (e *TaskEvents) TaskChanged(ctx context.Context, tx pgx.Tx, jobs executor.JobInserter, task db.Task) error {
	event, ok := eventOf(task)
	if !ok {
		return nil
	}
	q := db.New(tx)
	d, err := q.GetDeploymentByID(ctx, task.DeploymentID)
	if err != nil {
		return fmt.Errorf("webhooks: deployment of task %d: %w", task.ID, err)
	}
	hooks, err := q.WebhooksFor(ctx, db.WebhooksForParams{Event: string(event), DeploymentID: d.ID, Deployment: d.Name, Kind: pgtype.Text{String: task.Kind, Valid: true}})
	if err != nil {
		return fmt.Errorf("webhooks: webhooks of task %d: %w", task.ID, err)
	}
	return queueDeliveries(ctx, tx, jobs, hooks, payloadOf(event, task, d.Name, e.BaseURL),
		db.InsertDeliveryParams{DeploymentID: d.ID, TaskID: &task.ID, Event: string(event)})
}

// queueDeliveries queues a delivery of m to each of hooks in tx, in the
// hook's format; params say what each is about.
func queueDeliveries(ctx context.Context, tx pgx.Tx, jobs executor.JobInserter, hooks []db.Webhook, m message, params db.InsertDeliveryParams) error {
	for _, h := range hooks {
		b, err := body(m, Format(h.Format))
		if err != nil {
			return fmt.Errorf("webhooks: body of %s: %w", params.Event, err)
		}
		params.WebhookID, params.Body = h.ID, b
		if _, err := queueDelivery(ctx, tx, jobs, params); err != nil {
			return err
		}
	}
	return nil
}

// queueDelivery inserts a delivery and its job in tx.
func queueDelivery(ctx context.Context, tx pgx.Tx, jobs executor.JobInserter, params db.InsertDeliveryParams) (db.WebhookDelivery, error) {
	row, err := db.New(tx).InsertDelivery(ctx, params)
	if err != nil {
		return row, fmt.Errorf("webhooks: queue a delivery to webhook %d: %w", params.WebhookID, err)
	}
	if _, err := jobs.InsertJob(ctx, tx, deliveryArgs{DeliveryID: row.ID}, nil); err != nil {
		return row, fmt.Errorf("webhooks: queue a delivery to webhook %d: %w", params.WebhookID, err)
	}
	return row, nil
}

// deliveryArgs is the River job that sends one delivery.
type deliveryArgs struct {
	DeliveryID int64 `json:"delivery_id"`
}

// Kind names the job kind in River's table.
func (deliveryArgs) Kind() string { return "styrmin_webhook_delivery" }

// InsertOpts puts deliveries on their own queue, with their attempts.
func (deliveryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: MaxAttempts}
}
