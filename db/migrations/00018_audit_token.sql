-- An audit entry made with a personal API token names the token (its id,
-- never its secret) beside its user. NULL for every other credential and for
-- the entries recorded before this column existed.

-- +goose Up
ALTER TABLE audit_entries ADD COLUMN actor_token_id bigint;

-- +goose Down
ALTER TABLE audit_entries DROP COLUMN actor_token_id;
