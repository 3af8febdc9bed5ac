-- A webhook belongs to a team, or to nobody (global: NULL), see
-- docs/webhooks.md and docs/security.md, Teams. A team's webhook hears only
-- of its team's deployments and their tasks (queries/webhooks.sql,
-- WebhooksFor, reads the deployment's team when it chooses the hooks of an
-- event); a global one of every deployment, as before. A team's admins
-- manage its webhooks and its other members read them.
--
-- Existing webhooks stay global. A team's deletion deletes its webhooks (and
-- their delivery logs): a team's webhook must never become a global one.

-- +goose Up
ALTER TABLE webhooks ADD COLUMN team_id bigint REFERENCES teams (id) ON DELETE CASCADE;
-- A member's list: their teams' webhooks; and a team's, when it is deleted.
CREATE INDEX webhooks_team_idx ON webhooks (team_id, id) WHERE team_id IS NOT NULL;

-- +goose Down
DROP INDEX webhooks_team_idx;
DELETE FROM webhooks WHERE team_id IS NOT NULL;
ALTER TABLE webhooks DROP COLUMN team_id;
