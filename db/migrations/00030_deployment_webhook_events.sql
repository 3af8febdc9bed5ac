-- Webhook events of a deployment's health (deployment.degraded,
-- deployment.recovered), not of a task: a delivery names its deployment and,
-- when a task's change made it, its task. Each deployment's last known
-- health word is kept here, so that the processes that read health (every
-- web process) announce a turn once between them: the one whose write
-- changes the word announces it, in the same transaction.

-- +goose Up
ALTER TABLE webhook_deliveries ADD COLUMN deployment_id bigint REFERENCES deployments (id);
UPDATE webhook_deliveries d SET deployment_id = t.deployment_id FROM tasks t WHERE t.id = d.task_id;
ALTER TABLE webhook_deliveries ALTER COLUMN deployment_id SET NOT NULL;
ALTER TABLE webhook_deliveries ALTER COLUMN task_id DROP NOT NULL;

CREATE TABLE deployment_health_words (
    deployment_id bigint      PRIMARY KEY REFERENCES deployments (id) ON DELETE CASCADE,
    -- word is the last known health word (never Unknown: a cluster that
    -- could not be read ends no episode).
    word          text        NOT NULL,
    -- degraded_at is when the open Degraded episode began (the turn's key);
    -- NULL once the deployment is Healthy again.
    degraded_at   timestamptz,
    changed_at    timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE deployment_health_words;
DELETE FROM webhook_deliveries WHERE task_id IS NULL;
ALTER TABLE webhook_deliveries ALTER COLUMN task_id SET NOT NULL;
ALTER TABLE webhook_deliveries DROP COLUMN deployment_id;
