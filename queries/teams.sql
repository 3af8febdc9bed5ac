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

-- name: DeleteTeam :execrows
DELETE FROM teams WHERE name = @name;

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

-- name: CountTeamDeployments :one
-- Every deployment of the team, deleted ones included (they keep their team
-- in the history).
SELECT count(*) FROM deployments WHERE team_id = @team_id;

-- name: SetTeamMember :one
INSERT INTO team_members (team_id, user_id, role)
VALUES (@team_id, @user_id, @role)
ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role
RETURNING *;

-- name: RemoveTeamMember :execrows
DELETE FROM team_members WHERE team_id = @team_id AND user_id = @user_id;

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

-- name: MoveDeployment :execrows
-- MoveDeployment puts the live deployment of that name in another team.
UPDATE deployments SET team_id = @team_id, updated_at = now()
WHERE name = @name AND deleted_at IS NULL;

-- name: SetTeamPolicy :execrows
-- SetTeamPolicy replaces a team's policy (NULL: no rule of its own).
UPDATE teams SET namespaces = @namespaces, drivers = @drivers,
    max_deployments = @max_deployments, max_cpu_millis = @max_cpu_millis, max_memory_bytes = @max_memory_bytes
WHERE name = @name;

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
