-- Users, their sign-in failures (for throttling) and server settings such as the
-- session key generated on first start.

-- +goose Up
CREATE TABLE users (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username       text        NOT NULL UNIQUE
                   CHECK (username ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
    password_hash  text        NOT NULL,
    role           text        NOT NULL CHECK (role IN ('admin', 'operator', 'read-only')),
    disabled       boolean     NOT NULL DEFAULT false,
    -- session_epoch invalidates every session of the user when it changes
    -- (password reset, disabling, role change).
    session_epoch  integer     NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE signin_failures (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username    text        NOT NULL,
    address     text        NOT NULL,
    failed_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX signin_failures_username_idx ON signin_failures (username, failed_at);
CREATE INDEX signin_failures_address_idx ON signin_failures (address, failed_at);

CREATE TABLE settings (
    name        text        PRIMARY KEY,
    value       bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE settings;
DROP TABLE signin_failures;
DROP TABLE users;
