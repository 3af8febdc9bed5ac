-- Revoked API tokens are notified like ended sessions (00006_notify.sql), so
-- that servers can keep live tokens in memory: on styrmin_sessions,
--   'token:<id>'  an API token was deleted (revoked) or changed
--   'all'         API tokens were truncated
-- A change to a token's user is already notified as 'user:<id>'.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION styrmin_notify_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN
        PERFORM pg_notify('styrmin_sessions', 'all');
    ELSIF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('styrmin_sessions', 'user:' || OLD.id);
    ELSIF TG_TABLE_NAME = 'api_tokens' THEN
        PERFORM pg_notify('styrmin_sessions', 'token:' || OLD.id);
    ELSE
        PERFORM pg_notify('styrmin_sessions', 'session:' || OLD.id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER api_tokens_notify AFTER DELETE OR UPDATE OF token_hash, user_id, expires_at ON api_tokens
    FOR EACH ROW EXECUTE FUNCTION styrmin_notify_session();
CREATE TRIGGER api_tokens_notify_truncate AFTER TRUNCATE ON api_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION styrmin_notify_session();

-- +goose Down
DROP TRIGGER api_tokens_notify_truncate ON api_tokens;
DROP TRIGGER api_tokens_notify ON api_tokens;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION styrmin_notify_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN
        PERFORM pg_notify('styrmin_sessions', 'all');
    ELSIF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('styrmin_sessions', 'user:' || OLD.id);
    ELSE
        PERFORM pg_notify('styrmin_sessions', 'session:' || OLD.id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
