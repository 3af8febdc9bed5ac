-- The changes made with the styrmin command (user create, token create and
-- revoke, driver import, driver permissions --approve, secrets rotate) are
-- audited too; their credential is the command line.

-- +goose Up
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_via_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_via_check
    CHECK (actor_via IN ('session', 'api-token', 'action-token', 'command-line', 'none'));

-- +goose Down
-- Entries are never deleted, so the old check cannot hold for the rows
-- written since: it is restored for new rows only.
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_via_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_via_check
    CHECK (actor_via IN ('session', 'api-token', 'action-token', 'none')) NOT VALID;
