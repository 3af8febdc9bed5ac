-- Server-side sessions: the cookie carries a random session id, the table only
-- its SHA-256, so a copied cookie stops working when its row is deleted (sign-out,
-- ending it from the sessions page, disabling the user, resetting their password)
-- or when it expires. A session's row now decides who is signed in, so the
-- users' session_epoch is no longer needed.

-- +goose Up
CREATE TABLE sessions (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash    bytea       NOT NULL UNIQUE,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL,
    -- expires_at is the absolute end; the idle timeout counts from last_seen_at.
    expires_at    timestamptz NOT NULL,
    user_agent    text        NOT NULL,
    address       text        NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id, last_seen_at);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

ALTER TABLE users DROP COLUMN session_epoch;

-- +goose Down
ALTER TABLE users ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;
DROP TABLE sessions;
