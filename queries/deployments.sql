-- name: InsertDeployment :one
-- A deployment without a team_id is the team default's; requested_* are
-- NULL when what its pods request could not be counted.
INSERT INTO deployments (name, namespace, driver_name, driver_version, app_version,
                         parameters, secret_names, created_by, team_id,
                         requested_cpu_millis, requested_memory_bytes)
VALUES (@name, @namespace, @driver_name, @driver_version, @app_version,
        @parameters, '{}', @created_by, coalesce(sqlc.narg(team_id)::bigint, default_team_id()),
        sqlc.narg(requested_cpu_millis)::bigint, sqlc.narg(requested_memory_bytes)::bigint)
RETURNING *;

-- name: SetDeploymentRequests :exec
-- What the deployment's pods request as its last install or upgrade was
-- planned (package requests).
UPDATE deployments SET requested_cpu_millis = @cpu_millis::bigint, requested_memory_bytes = @memory_bytes::bigint
WHERE id = @id;

-- name: GetLiveDeployment :one
-- The deployment of that name that has not been deleted.
SELECT * FROM deployments WHERE name = @name AND deleted_at IS NULL;

-- name: GetDeploymentByID :one
SELECT * FROM deployments WHERE id = @id;

-- name: SetDeploymentSecrets :exec
UPDATE deployments SET secrets = @secrets, secret_names = @secret_names::text[], updated_at = now() WHERE id = @id;

-- name: ListDeployments :many
-- A page of the deployments (the deleted ones too when asked), live ones by
-- name, then deleted ones by name, newest first, after the key of the
-- previous page's last one (when after), each with its driver's title and
-- icon flag, its team's name and its newest top-level task (every deployment has one: its
-- install task is written with it). Filters, each off when empty: query, a
-- substring of the name (names are lower case); driver; namespace; with
-- only_names, live deployments named in names only; live deployments named
-- in except_names are left out; with only_teams, the deployments of the
-- teams in team_ids only. The page is chosen from deployments alone, then
-- joined to the rest: a plan (the generic one above all) that joined every
-- deployment to its driver, team and newest task before sorting read as
-- many newest tasks as there are deployments for a page of 100.
SELECT sqlc.embed(d), v.title AS driver_title, (v.icon IS NOT NULL)::boolean AS has_icon,
       t.id AS last_task_id, t.kind AS last_task_kind, t.status AS last_task_status,
       t.created_by AS last_task_by, t.created_at AS last_task_at, tm.name AS team_name
FROM (
    SELECT * FROM deployments d
    WHERE (@include_deleted::boolean OR d.deleted_at IS NULL)
      AND (@query::text = '' OR strpos(d.name, @query::text) > 0)
      AND (@driver::text = '' OR d.driver_name = @driver::text)
      AND (@namespace::text = '' OR d.namespace = @namespace::text)
      AND (NOT @only_names::boolean OR (d.deleted_at IS NULL AND d.name = ANY (@names::text[])))
      AND (d.deleted_at IS NOT NULL OR d.name <> ALL (coalesce(@except_names::text[], '{}')))
      AND (NOT @only_teams::boolean OR d.team_id = ANY (@team_ids::bigint[]))
      AND (NOT @after::boolean
           OR (d.deleted_at IS NOT NULL, d.name, -d.id) > (@after_deleted::boolean, @after_name::text, -(@after_id::bigint)))
    ORDER BY d.deleted_at IS NOT NULL, d.name, -d.id
    LIMIT @max_rows::int
) d
JOIN driver_versions v ON v.name = d.driver_name AND v.version = d.driver_version
JOIN teams tm ON tm.id = d.team_id
JOIN LATERAL (
    SELECT id, kind, status, created_by, created_at FROM tasks
    WHERE deployment_id = d.id AND parent_step_id IS NULL
    ORDER BY id DESC LIMIT 1
) t ON true
ORDER BY d.deleted_at IS NOT NULL, d.name, -d.id;

-- name: ListDeploymentsBefore :many
-- ListDeployments backwards: the page before the key of the next page's
-- first one, in the list's reverse order (the caller turns it round), with
-- the same columns and filters; it walks the same indexes backwards.
SELECT sqlc.embed(d), v.title AS driver_title, (v.icon IS NOT NULL)::boolean AS has_icon,
       t.id AS last_task_id, t.kind AS last_task_kind, t.status AS last_task_status,
       t.created_by AS last_task_by, t.created_at AS last_task_at, tm.name AS team_name
FROM (
    SELECT * FROM deployments d
    WHERE (@include_deleted::boolean OR d.deleted_at IS NULL)
      AND (@query::text = '' OR strpos(d.name, @query::text) > 0)
      AND (@driver::text = '' OR d.driver_name = @driver::text)
      AND (@namespace::text = '' OR d.namespace = @namespace::text)
      AND (NOT @only_names::boolean OR (d.deleted_at IS NULL AND d.name = ANY (@names::text[])))
      AND (d.deleted_at IS NOT NULL OR d.name <> ALL (coalesce(@except_names::text[], '{}')))
      AND (NOT @only_teams::boolean OR d.team_id = ANY (@team_ids::bigint[]))
      AND (d.deleted_at IS NOT NULL, d.name, -d.id) < (@before_deleted::boolean, @before_name::text, -(@before_id::bigint))
    ORDER BY d.deleted_at IS NOT NULL DESC, d.name DESC, -d.id DESC
    LIMIT @max_rows::int
) d
JOIN driver_versions v ON v.name = d.driver_name AND v.version = d.driver_version
JOIN teams tm ON tm.id = d.team_id
JOIN LATERAL (
    SELECT id, kind, status, created_by, created_at FROM tasks
    WHERE deployment_id = d.id AND parent_step_id IS NULL
    ORDER BY id DESC LIMIT 1
) t ON true
ORDER BY d.deleted_at IS NOT NULL DESC, d.name DESC, -d.id DESC;

-- name: GetDeploymentByName :one
-- The deployment of that name: the live one, else the one deleted last.
SELECT * FROM deployments WHERE name = @name
ORDER BY deleted_at IS NOT NULL, id DESC
LIMIT 1;

-- name: GetRevision :one
SELECT * FROM revisions WHERE deployment_id = @deployment_id AND revision = @revision;

-- name: ListRevisions :many
-- The newest max_rows revisions Styrmin recorded of a deployment (a page
-- shows those Helm keeps, never the whole history).
SELECT * FROM revisions WHERE deployment_id = @deployment_id ORDER BY revision DESC LIMIT @max_rows::int;

-- name: InsertRevision :exec
INSERT INTO revisions (deployment_id, revision, task_id, driver_version, app_version, parameters, secrets)
VALUES (@deployment_id, @revision, @task_id::bigint, @driver_version, @app_version, @parameters, @secrets)
ON CONFLICT (deployment_id, revision) DO UPDATE
SET task_id = EXCLUDED.task_id, driver_version = EXCLUDED.driver_version,
    app_version = EXCLUDED.app_version, parameters = EXCLUDED.parameters, secrets = EXCLUDED.secrets;

-- name: SetDeploymentRelease :exec
-- Records what a successful install, upgrade or rollback put in place.
UPDATE deployments
SET driver_version = @driver_version, app_version = @app_version, parameters = @parameters,
    secrets = @secrets, secret_names = @secret_names::text[], status = 'deployed', updated_at = now()
WHERE id = @id;

-- name: SetDeploymentStatus :exec
UPDATE deployments SET status = @status, updated_at = now() WHERE id = @id;

-- name: SetNamespaceCreated :exec
UPDATE deployments SET namespace_created = true, updated_at = now() WHERE id = @id;

-- name: HandOverCreatedNamespace :many
-- The live deployments other than @id in @namespace, which from now
-- on count as having created it: the namespace Styrmin created for @id goes
-- with the last of them to be deleted.
UPDATE deployments SET namespace_created = true
WHERE namespace = @namespace AND deleted_at IS NULL AND id <> @id
RETURNING name;

-- name: SetDeploymentComponents :exec
UPDATE deployments SET components = @components, updated_at = now() WHERE id = @id;

-- name: MarkDeploymentDeleted :exec
UPDATE deployments SET status = 'deleted', deleted_at = now(), updated_at = now() WHERE id = @id;

-- name: ListDeploymentsWithoutSecretNames :many
-- Deployments whose secrets were sealed before their names were recorded.
SELECT id, secrets FROM deployments WHERE secret_names IS NULL;

-- name: SetDeploymentSecretNames :exec
UPDATE deployments SET secret_names = @secret_names::text[] WHERE id = @id AND secrets = @secrets;

-- name: ListDeploymentSecretsNotUnder :many
-- A page of the deployments whose secrets are not sealed under the key of
-- header (a version byte and key id, see secrets.Box.Header), by id.
SELECT id, secrets FROM deployments
WHERE secrets IS NOT NULL AND substring(secrets FROM 1 FOR length(@header::bytea)) <> @header::bytea
  AND id > @after
ORDER BY id LIMIT @page;

-- name: ResealDeploymentSecrets :execrows
-- Replaces a deployment's sealed secrets, unless they changed since they were read.
UPDATE deployments SET secrets = @new WHERE id = @id AND secrets = @old;

-- name: ListRevisionSecretsNotUnder :many
-- ListDeploymentSecretsNotUnder for revisions, by (deployment_id, revision).
SELECT deployment_id, revision, secrets FROM revisions
WHERE secrets IS NOT NULL AND substring(secrets FROM 1 FOR length(@header::bytea)) <> @header::bytea
  AND (deployment_id, revision) > (@after_deployment_id::bigint, @after_revision::integer)
ORDER BY deployment_id, revision LIMIT @page;

-- name: ResealRevisionSecrets :execrows
UPDATE revisions SET secrets = @new
WHERE deployment_id = @deployment_id AND revision = @revision AND secrets = @old;

-- name: CountSecretsNotUnder :one
-- The sealed values of deployments, revisions, tasks, webhooks and schedules that are not sealed
-- under the key of header (see ListDeploymentSecretsNotUnder).
SELECT ((SELECT count(*) FROM deployments
        WHERE secrets IS NOT NULL AND substring(secrets FROM 1 FOR length(@header::bytea)) <> @header::bytea)
     + (SELECT count(*) FROM revisions
        WHERE secrets IS NOT NULL AND substring(secrets FROM 1 FOR length(@header::bytea)) <> @header::bytea)
     + (SELECT count(*) FROM tasks
        WHERE secret_inputs IS NOT NULL AND substring(secret_inputs FROM 1 FOR length(@header::bytea)) <> @header::bytea)
     + (SELECT count(*) FROM webhooks
        WHERE secret IS NOT NULL AND substring(secret FROM 1 FOR length(@header::bytea)) <> @header::bytea)
     + (SELECT count(*) FROM action_schedules
        WHERE secret_prompts IS NOT NULL AND substring(secret_prompts FROM 1 FOR length(@header::bytea)) <> @header::bytea))::bigint
       AS not_under;

-- name: ListLiveNamespaces :many
-- The namespaces that hold a live deployment, each once.
SELECT DISTINCT namespace FROM deployments WHERE deleted_at IS NULL ORDER BY namespace;
