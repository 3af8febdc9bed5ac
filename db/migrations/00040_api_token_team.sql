-- An API token may be narrowed to one team (see docs/security.md, Teams):
-- it then acts in that team only, with its user's role there as a member,
-- and has no role of its own elsewhere (package auth reads it as the role
-- member, package teams keeps its user's memberships to that team).
--
-- A team's deletion deletes the tokens narrowed to it: a token whose team
-- went must never become one that acts in every team.

-- +goose Up
ALTER TABLE api_tokens ADD COLUMN team_id bigint REFERENCES teams (id) ON DELETE CASCADE;
-- The tokens of a team, found when the team is deleted.
CREATE INDEX api_tokens_team_idx ON api_tokens (team_id) WHERE team_id IS NOT NULL;

-- +goose Down
DROP INDEX api_tokens_team_idx;
DELETE FROM api_tokens WHERE team_id IS NOT NULL;
ALTER TABLE api_tokens DROP COLUMN team_id;
