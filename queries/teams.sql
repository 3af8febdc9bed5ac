-- name: CreateTeam :one
INSERT INTO teams (name) VALUES (@name) RETURNING *;

-- name: ListTeamsSeen :many
-- The teams a user sees, each with its number of members and of live
-- deployments and the user's role in it (NULL: not a member): every team
-- with every_team, else the user's teams only.
SELECT t.*,
       (SELECT count(*) FROM team_members c WHERE c.team_id = t.id) AS members,
       (SELECT count(*) FROM deployments d WHERE d.team_id = t.id AND d.deleted_at IS NULL) AS deployments,
       m.role AS my_role
FROM teams t
LEFT JOIN team_members m ON m.team_id = t.id AND m.user_id = @user_id
WHERE @every_team::boolean OR m.user_id IS NOT NULL
ORDER BY t.name;

-- name: GetTeamByName :one
SELECT * FROM teams WHERE name = @name;

-- name: DeleteEmptyTeam :one
-- DeleteEmptyTeam deletes the team of that name unless it holds
-- deployments, deleted ones included (their history names the team), in
-- one statement: it says whether the team exists and how many it holds (0:
-- deleted).
WITH team AS (SELECT t.id FROM teams t WHERE t.name = @name),
held AS (SELECT count(*) AS n FROM deployments WHERE team_id = (SELECT id FROM team)),
deleted AS (
    DELETE FROM teams WHERE id = (SELECT id FROM team) AND (SELECT n FROM held) = 0
    RETURNING id
)
SELECT EXISTS (SELECT 1 FROM team) AS found, (SELECT n FROM held)::bigint AS held;

-- name: CountLiveTeamDeployments :one
SELECT count(*) FROM deployments WHERE team_id = @team_id AND deleted_at IS NULL;

-- name: SumLiveTeamRequests :one
-- What the team's live deployments but one (@except_id; 0 for none)
-- request together, as planned (a deployment planned before the figures
-- were recorded counts 0), each sum at most the largest bigint.
SELECT least(coalesce(sum(requested_cpu_millis), 0), 9223372036854775807)::bigint AS cpu_millis,
       least(coalesce(sum(requested_memory_bytes), 0), 9223372036854775807)::bigint AS memory_bytes
FROM deployments
WHERE team_id = @team_id AND deleted_at IS NULL AND id <> @except_id;

-- name: SetTeamMember :one
INSERT INTO team_members (team_id, user_id, role)
VALUES (@team_id, @user_id, @role)
ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role
RETURNING *;

-- name: SetTeamMemberByName :execrows
-- SetTeamMemberByName makes a user a member of the team of that name with a
-- role, or changes their role there; no row: there is no such team.
INSERT INTO team_members (team_id, user_id, role)
SELECT id, @user_id::bigint, @role::text FROM teams WHERE name = @team
ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role;

-- name: RemoveTeamMember :execrows
DELETE FROM team_members WHERE team_id = @team_id AND user_id = @user_id;

-- name: RemoveTeamMemberByName :one
-- RemoveTeamMemberByName takes a user out of the team of that name, in one
-- statement that says whether the team exists and whether they were in it.
WITH team AS (SELECT t.id FROM teams t WHERE t.name = @team),
removed AS (
    DELETE FROM team_members WHERE team_id = (SELECT id FROM team) AND user_id = @user_id
    RETURNING user_id
)
SELECT EXISTS (SELECT 1 FROM team) AS found, EXISTS (SELECT 1 FROM removed) AS removed;

-- name: ListTeamMembers :many
SELECT m.role, u.id AS user_id, u.username, u.role AS user_role
FROM team_members m JOIN users u ON u.id = m.user_id
WHERE m.team_id = @team_id
ORDER BY u.username;

-- name: ListUserTeams :many
-- The teams a user belongs to, with their role in each.
SELECT t.id, t.name, m.role
FROM team_members m JOIN teams t ON t.id = m.team_id
WHERE m.user_id = @user_id
ORDER BY t.name;

-- name: GetDeploymentTeam :one
-- The team of the deployment of that name: the live one, else the one
-- deleted last (as GetDeploymentByName).
SELECT team_id FROM deployments WHERE name = @name
ORDER BY deleted_at IS NOT NULL, id DESC
LIMIT 1;

-- name: GetTeamName :one
SELECT name FROM teams WHERE id = @id;

-- name: GetTaskTeam :one
SELECT d.team_id FROM tasks t JOIN deployments d ON d.id = t.deployment_id WHERE t.id = @id;

-- name: MoveDeployment :one
-- MoveDeployment puts the live deployment of that name in the team of that
-- name, in one statement that says whether the team exists and whether a
-- live deployment moved.
WITH team AS (SELECT t.id FROM teams t WHERE t.name = @team),
moved AS (
    UPDATE deployments d SET team_id = (SELECT id FROM team), updated_at = now()
    WHERE d.name = @name AND d.deleted_at IS NULL AND EXISTS (SELECT 1 FROM team)
    RETURNING id
)
SELECT EXISTS (SELECT 1 FROM team) AS found, EXISTS (SELECT 1 FROM moved) AS moved;

-- name: SetTeamPolicy :execrows
-- SetTeamPolicy replaces a team's policy (NULL: no rule of its own).
UPDATE teams SET namespaces = @namespaces, drivers = @drivers,
    max_deployments = @max_deployments, max_cpu_millis = @max_cpu_millis, max_memory_bytes = @max_memory_bytes
WHERE name = @name;

-- name: ListTeamPolicies :many
-- The name and policy of every team (every_team), else of the teams of ids,
-- by name: where a user may deploy, and under which rules.
SELECT id, name, namespaces, drivers, max_deployments, max_cpu_millis, max_memory_bytes
FROM teams
WHERE @every_team::boolean OR id = ANY (@ids::bigint[])
ORDER BY name;

-- name: ListUserTeamDrivers :many
-- The driver rules (NULL: every driver) of a user's teams, or of their one
-- team only_team when it is not 0: the drivers the catalogue shows them.
SELECT t.drivers
FROM team_members m JOIN teams t ON t.id = m.team_id
WHERE m.user_id = @user_id AND (@only_team::bigint = 0 OR t.id = @only_team);

-- name: GetTeam :one
SELECT * FROM teams WHERE id = @id;

-- name: LockTeam :one
-- LockTeam reads a team and holds its row until the transaction ends: the
-- installs into one team take their turn, so its quota is checked against
-- every deployment committed before.
SELECT * FROM teams WHERE id = @id FOR UPDATE;

-- name: NamespaceHolderTeam :one
-- NamespaceHolderTeam names a team other than @team_id that holds a live
-- deployment in the namespace.
SELECT t.name FROM deployments d JOIN teams t ON t.id = d.team_id
WHERE d.namespace = @namespace AND d.deleted_at IS NULL AND d.team_id <> @team_id
ORDER BY d.id
LIMIT 1;
