-- Every request gets an id (X-Request-Id), in its log line, its problem
-- answers and the audit entries it writes: an admin finds the log lines of an
-- audit entry, and the entry of an answer a user quotes, by that id. Entries
-- written before this migration, and by the command line, have none ('').

-- +goose Up
ALTER TABLE audit_entries ADD COLUMN request_id text NOT NULL DEFAULT '';
-- ListAuditEntries by request id: the one entry of a request, however long the log.
CREATE INDEX audit_entries_request_idx ON audit_entries (request_id) WHERE request_id <> '';

-- +goose Down
DROP INDEX audit_entries_request_idx;
ALTER TABLE audit_entries DROP COLUMN request_id;
