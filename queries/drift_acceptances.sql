-- name: ListDriftAcceptances :many
SELECT * FROM drift_acceptances WHERE deployment_id = @deployment_id ORDER BY api_version, kind, namespace, name;

-- name: DeleteDriftAcceptances :exec
DELETE FROM drift_acceptances WHERE deployment_id = @deployment_id;

-- name: InsertDriftAcceptance :exec
INSERT INTO drift_acceptances (deployment_id, api_version, kind, namespace, name, fingerprint, accepted_by)
VALUES (@deployment_id, @api_version, @kind, @namespace, @name, @fingerprint, @accepted_by);
