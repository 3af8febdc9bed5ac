-- The team of an audit entry: that of the deployment (or the team) it is
-- about, read when the entry is written and kept (see docs/security.md,
-- Teams). A member of a team reads only the entries of their teams; the
-- entry of a deployment that was deleted, or whose name a deployment of
-- another team took since, keeps the team it was written with. NULL for an
-- entry about nothing in a team (a user, a source, the settings), which
-- only users whose own role reads every team see.
--
-- No foreign key: entries are never changed (00015_audit.sql), and a team
-- that is deleted leaves its entries with the id it had.

-- +goose Up
ALTER TABLE audit_entries ADD COLUMN team_id bigint;
-- The entries so far: those about a deployment get its team as it is now
-- (the live deployment of the name, else the one deleted last), those about
-- a team that team. The append-only trigger is off for the backfill only.
ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_append_only;
UPDATE audit_entries a SET team_id = (
    SELECT d.team_id FROM deployments d WHERE d.name = a.target_name
    ORDER BY d.deleted_at IS NOT NULL, d.id DESC LIMIT 1)
WHERE a.target_kind = 'deployment';
UPDATE audit_entries a SET team_id = t.id FROM teams t
WHERE a.target_kind = 'team' AND t.name = a.target_name;
ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_append_only;
-- A member's page of the log: their teams' entries, newest first.
CREATE INDEX audit_entries_team_idx ON audit_entries (team_id, id);

-- +goose Down
DROP INDEX audit_entries_team_idx;
ALTER TABLE audit_entries DROP COLUMN team_id;
