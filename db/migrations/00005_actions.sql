-- Action runs: the tokens that let one run call the primitives, the log
-- lines of each hook step, stored as they arrive, and cancelling a running task.

-- +goose Up
CREATE TABLE action_tokens (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- token_hash is the SHA-256 of the token; the token itself is never stored.
    token_hash     bytea       NOT NULL UNIQUE,
    deployment_id  bigint      NOT NULL REFERENCES deployments (id),
    task_id        bigint      NOT NULL REFERENCES tasks (id),
    step_id        bigint      NOT NULL REFERENCES steps (id),
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    revoked_at     timestamptz
);
CREATE INDEX action_tokens_step_idx ON action_tokens (step_id);

CREATE TABLE step_logs (
    step_id   bigint      NOT NULL REFERENCES steps (id) ON DELETE CASCADE,
    seq       integer     NOT NULL,
    level     text        NOT NULL CHECK (level IN ('DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL')),
    message   text        NOT NULL,
    logged_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (step_id, seq)
);

-- cancel_requested_by names who asked to cancel a running task; its runner
-- sees it at its next heartbeat and stops.
ALTER TABLE tasks ADD COLUMN cancel_requested_by text;

-- +goose Down
ALTER TABLE tasks DROP COLUMN cancel_requested_by;
DROP TABLE step_logs;
DROP TABLE action_tokens;
