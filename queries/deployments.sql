-- name: InsertDeployment :one
INSERT INTO deployments (name, namespace, driver_name, driver_version, app_version,
                         parameters, secrets, created_by)
VALUES (@name, @namespace, @driver_name, @driver_version, @app_version,
        @parameters, @secrets, @created_by)
RETURNING *;

-- name: GetLiveDeployment :one
-- The deployment of that name that has not been deleted.
SELECT * FROM deployments WHERE name = @name AND deleted_at IS NULL;

-- name: GetDeploymentByID :one
SELECT * FROM deployments WHERE id = @id;

-- name: SetDeploymentSecrets :exec
UPDATE deployments SET secrets = @secrets, updated_at = now() WHERE id = @id;
