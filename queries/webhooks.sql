-- name: InsertWebhook :one
-- A NULL team_id makes a global webhook (of every team).
INSERT INTO webhooks (url, events, deployments, kinds, format, created_by, team_id)
VALUES (@url, @events, @deployments, @kinds, @format, @created_by, sqlc.narg(team_id))
RETURNING *;

-- name: SetWebhookSecret :exec
-- Stores a webhook's sealed secret, once its id (its place) is known.
UPDATE webhooks SET secret = @secret WHERE id = @id;

-- name: ListWebhooks :many
-- The webhooks a caller sees, newest first, with their team's name (NULL:
-- global): every webhook with every, those filtered to deployments with
-- per_deployment (what a global operator manages), and those of the teams
-- in team_ids (a member's teams): the visibility rule lives here.
SELECT sqlc.embed(w), t.name AS team
FROM webhooks w LEFT JOIN teams t ON t.id = w.team_id
WHERE @every::boolean
   OR (@per_deployment::boolean AND cardinality(w.deployments) > 0)
   OR w.team_id = ANY(@team_ids::bigint[])
ORDER BY w.id DESC;

-- name: GetWebhook :one
-- A webhook with its team's name (NULL: global).
SELECT sqlc.embed(w), t.name AS team
FROM webhooks w LEFT JOIN teams t ON t.id = w.team_id
WHERE w.id = @id;

-- name: GetWebhookTeam :one
-- The team of a webhook (NULL: global), for the permission table.
SELECT team_id FROM webhooks WHERE id = @id;

-- name: DeleteWebhook :execrows
DELETE FROM webhooks WHERE id = @id;

-- name: WebhooksFor :many
-- The webhooks that subscribe to event on the deployment (named deployment,
-- whose id is deployment_id), for a task of kind: the global webhooks and
-- those of the deployment's team, as it is now. A NULL kind (an event of
-- the deployment, not of a task) passes the kinds filter, which is about
-- tasks.
SELECT * FROM webhooks
WHERE @event::text = ANY(events)
  AND (team_id IS NULL OR team_id = (SELECT d.team_id FROM deployments d WHERE d.id = @deployment_id))
  AND (cardinality(deployments) = 0 OR @deployment::text = ANY(deployments))
  AND (cardinality(kinds) = 0 OR sqlc.narg(kind)::text IS NULL OR sqlc.narg(kind)::text = ANY(kinds))
ORDER BY id;

-- name: InsertDelivery :one
INSERT INTO webhook_deliveries (webhook_id, deployment_id, task_id, event, body, redelivery_of)
VALUES (@webhook_id, @deployment_id, sqlc.narg(task_id), @event, @body, sqlc.narg(redelivery_of))
RETURNING *;

-- name: GetDelivery :one
SELECT * FROM webhook_deliveries WHERE id = @id;

-- name: DeliveryToSend :one
-- A delivery with its webhook.
SELECT sqlc.embed(d), sqlc.embed(w)
FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
WHERE d.id = @id;

-- name: RecordAttempt :exec
-- Records an attempt: the delivery keeps the last one's summary, and the
-- attempt is added to its log.
WITH d AS (
    UPDATE webhook_deliveries
    SET status = @status, attempts = attempts + 1, status_code = sqlc.narg(status_code), error = @error,
        duration_ms = @duration_ms, attempted_at = now()
    WHERE webhook_deliveries.id = @id
    RETURNING webhook_deliveries.id AS delivery_id, attempts, status_code, error, duration_ms, attempted_at
)
INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, error, duration_ms, attempted_at)
SELECT d.delivery_id, d.attempts, d.status_code, d.error, coalesce(d.duration_ms, 0), d.attempted_at FROM d;

-- name: ListDeliveryAttempts :many
-- Every attempt of the deliveries with these ids, oldest first.
SELECT * FROM webhook_delivery_attempts
WHERE delivery_id = ANY(@delivery_ids::bigint[])
ORDER BY delivery_id, attempt;

-- name: UpdateWebhook :one
UPDATE webhooks
SET url = @url, events = @events, deployments = @deployments, kinds = @kinds, format = @format
WHERE id = @id
RETURNING *;

-- name: ListDeliveries :many
-- A webhook's latest deliveries, newest first, with their deployment's name.
SELECT sqlc.embed(d), dep.name AS deployment
FROM webhook_deliveries d JOIN deployments dep ON dep.id = d.deployment_id
WHERE d.webhook_id = @webhook_id
ORDER BY d.id DESC LIMIT @page_size;

-- name: ListWebhookSecretsNotUnder :many
-- ListDeploymentSecretsNotUnder for webhooks' secrets.
SELECT id, secret FROM webhooks
WHERE secret IS NOT NULL AND substring(secret FROM 1 FOR length(@header::bytea)) <> @header::bytea
  AND id > @after
ORDER BY id LIMIT @page;

-- name: ResealWebhookSecret :execrows
UPDATE webhooks SET secret = @new WHERE id = @id AND secret = @old;
