-- Webhooks: HTTP endpoints that hear of tasks that start and end, and the
-- log of what was delivered to each (package webhooks). A delivery is a row
-- committed with its River job, in the transaction of the task's change.

-- +goose Up
CREATE TABLE webhooks (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url         text        NOT NULL,
    -- secret signs each body (HMAC-SHA256), sealed at webhooks.secret row
    -- <id> (package secrets); NULL only inside the inserting transaction.
    secret      bytea,
    -- events: started, succeeded, failed, canceled.
    events      text[]      NOT NULL,
    -- deployments and kinds filter the tasks; empty means every one.
    deployments text[]      NOT NULL DEFAULT '{}',
    kinds       text[]      NOT NULL DEFAULT '{}',
    format      text        NOT NULL DEFAULT 'json' CHECK (format IN ('json', 'slack')),
    created_by  text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id   bigint      NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    task_id      bigint      NOT NULL REFERENCES tasks (id),
    event        text        NOT NULL,
    -- body is what is sent, byte for byte (the signature is over it).
    body         bytea       NOT NULL,
    status       text        NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'delivered', 'failed')),
    -- The last attempt: how many there were, the answer's status code (NULL
    -- when none came), the error and how long it took.
    attempts     integer     NOT NULL DEFAULT 0,
    status_code  integer,
    error        text        NOT NULL DEFAULT '',
    duration_ms  integer,
    redelivery_of bigint     REFERENCES webhook_deliveries (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    attempted_at timestamptz
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
