-- The audit log: one row per state-changing request and per sign-in, with
-- who made it (user, the credential it came with, the role at the time, the
-- address), what (action, target), and how it ended (allowed, refused with
-- the reason, failed). Rows are never changed: a trigger refuses UPDATE,
-- DELETE and TRUNCATE, except the DELETEs of audit_prune, the retention.

-- +goose Up
CREATE TABLE audit_entries (
    id            bigserial   PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT now(),
    actor_user_id bigint,
    actor_name    text        NOT NULL,
    -- actor_via is the credential: session, api-token, action-token or none.
    actor_via     text        NOT NULL CHECK (actor_via IN ('session', 'api-token', 'action-token', 'none')),
    actor_role    text        NOT NULL,
    actor_address text        NOT NULL,
    action        text        NOT NULL CHECK (action <> ''),
    target_kind   text        NOT NULL,
    target_name   text        NOT NULL,
    outcome       text        NOT NULL CHECK (outcome IN ('allowed', 'refused', 'failed')),
    reason        text        NOT NULL,
    detail        jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_entries_at ON audit_entries (at);

-- +goose StatementBegin
CREATE FUNCTION audit_entries_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('styrmin.audit_prune', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit entries are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_entries_refuse_change();
CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION audit_entries_refuse_change();

-- audit_prune deletes the entries older than before, the only DELETE the
-- trigger lets through, and returns how many it deleted.
-- +goose StatementBegin
CREATE FUNCTION audit_prune(before timestamptz) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    PERFORM set_config('styrmin.audit_prune', 'on', true);
    DELETE FROM audit_entries WHERE at < before;
    GET DIAGNOSTICS n = ROW_COUNT;
    PERFORM set_config('styrmin.audit_prune', 'off', true);
    RETURN n;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE audit_entries;
DROP FUNCTION audit_prune(timestamptz);
DROP FUNCTION audit_entries_refuse_change();
