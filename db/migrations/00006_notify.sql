-- Change notifications, so that servers can keep sessions and the driver
-- catalogue in memory and still see at once what another server (or psql)
-- changed. Each is sent by a trigger, in the changing transaction, so no
-- code path can forget it and it arrives only if the change commits:
--   styrmin_sessions   'session:<id>'  a session was deleted or changed
--                      'user:<id>'     a user was changed or deleted (role,
--                                      disabled, password, name)
--                      'all'           sessions or users were truncated
--   styrmin_catalogue  ''              driver_versions changed
-- The channel names are db.SessionsChannel and db.CatalogueChannel.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION styrmin_notify_session() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER sessions_notify AFTER DELETE OR UPDATE OF token_hash, user_id, expires_at ON sessions
    FOR EACH ROW EXECUTE FUNCTION styrmin_notify_session();
CREATE TRIGGER sessions_notify_truncate AFTER TRUNCATE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION styrmin_notify_session();
CREATE TRIGGER users_notify AFTER DELETE OR UPDATE ON users
    FOR EACH ROW EXECUTE FUNCTION styrmin_notify_session();
CREATE TRIGGER users_notify_truncate AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION styrmin_notify_session();

-- +goose StatementBegin
CREATE FUNCTION styrmin_notify_catalogue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('styrmin_catalogue', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER driver_versions_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON driver_versions
    FOR EACH STATEMENT EXECUTE FUNCTION styrmin_notify_catalogue();

-- +goose Down
DROP TRIGGER driver_versions_notify ON driver_versions;
DROP FUNCTION styrmin_notify_catalogue();
DROP TRIGGER users_notify_truncate ON users;
DROP TRIGGER users_notify ON users;
DROP TRIGGER sessions_notify_truncate ON sessions;
DROP TRIGGER sessions_notify ON sessions;
DROP FUNCTION styrmin_notify_session();
