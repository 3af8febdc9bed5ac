-- Every attempt of a webhook delivery, not only its last: the delivery log
-- shows each answer (status code or error) and how long it took. The
-- delivery row keeps the last attempt's summary, as before.

-- +goose Up
CREATE TABLE webhook_delivery_attempts (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id  bigint      NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    -- attempt counts from 1 for each delivery.
    attempt      integer     NOT NULL CHECK (attempt > 0),
    -- status_code is NULL when no answer came.
    status_code  integer,
    error        text        NOT NULL DEFAULT '',
    duration_ms  integer     NOT NULL,
    attempted_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (delivery_id, attempt)
);

-- +goose Down
DROP TABLE webhook_delivery_attempts;
