-- Teams: every deployment belongs to one team, and a user's role in a team
-- says what they may do with its deployments (see docs/security.md, Teams).
--
-- A user's own role stays global: an admin administers everything, an
-- operator operates and a read-only user reads every team's deployments, as
-- before teams. The new global role 'member' gives nothing beyond signing in
-- and the catalogue: such a user sees and changes only the deployments of the
-- teams they belong to, with their role in each.
--
-- On upgrade every existing deployment and user lands in the team 'default',
-- users with their current role, so nobody loses access.

-- +goose Up
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check
    CHECK (role IN ('admin', 'operator', 'read-only', 'member'));

CREATE TABLE teams (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text        NOT NULL UNIQUE CHECK (name ~ '^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$'),
    created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO teams (name) VALUES ('default');

CREATE TABLE team_members (
    team_id     bigint      NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role        text        NOT NULL CHECK (role IN ('admin', 'operator', 'read-only')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, user_id)
);
-- A user's teams, read on each request of a member.
CREATE INDEX team_members_user_idx ON team_members (user_id, team_id);
INSERT INTO team_members (team_id, user_id, role)
SELECT (SELECT id FROM teams WHERE name = 'default'), id, role FROM users;

-- The team 'default' always exists (package teams refuses its deletion): a
-- deployment written without a team (an install that names none) is its.
-- +goose StatementBegin
CREATE FUNCTION default_team_id() RETURNS bigint LANGUAGE sql STABLE
AS $$ SELECT id FROM teams WHERE name = 'default' $$;
-- +goose StatementEnd

-- A team holding deployments cannot be deleted (RESTRICT): move them first.
ALTER TABLE deployments ADD COLUMN team_id bigint NOT NULL DEFAULT default_team_id() REFERENCES teams (id);
CREATE INDEX deployments_team_idx ON deployments (team_id);

-- +goose Down
DROP INDEX deployments_team_idx;
ALTER TABLE deployments DROP COLUMN team_id;
DROP FUNCTION default_team_id();
DROP TABLE team_members;
DROP TABLE teams;
UPDATE users SET role = 'read-only' WHERE role = 'member';
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('admin', 'operator', 'read-only'));
