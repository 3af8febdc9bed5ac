-- Personal API tokens: a user's credentials for scripts calling /api/v1. The
-- table holds only the SHA-256 of each token; revoking deletes the row. A token
-- acts with its user's current role and stops working when the user is disabled.

-- +goose Up
CREATE TABLE api_tokens (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash    bytea       NOT NULL UNIQUE,
    user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          text        NOT NULL CHECK (name <> ''),
    created_at    timestamptz NOT NULL,
    -- expires_at is NULL for a token that lasts until revoked.
    expires_at    timestamptz,
    last_used_at  timestamptz
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id, id);

-- +goose Down
DROP TABLE api_tokens;
