-- name: InsertDriverVersion :one
-- Inserts a driver version unless one with the same name and version exists;
-- returns no row in that case (the caller then compares digests).
INSERT INTO driver_versions (
    name, version, title, summary, labels, spec, icon, icon_content_type,
    readme, digest, bundle, chart, permissions, permissions_error, created_by, source, signed_by
) VALUES (
    @name, @version, @title, @summary, @labels, @spec, @icon, @icon_content_type,
    @readme, @digest, @bundle, @chart, @permissions, @permissions_error, @created_by, @source, @signed_by
)
ON CONFLICT (name, version) DO NOTHING
RETURNING id;

-- name: GetDriverVersionDigest :one
-- The digest of a stored version's bundle, and whether its remote chart is stored.
SELECT digest, (chart IS NOT NULL)::boolean AS has_chart
FROM driver_versions WHERE name = @name AND version = @version;

-- name: SetDriverVersionChart :exec
-- Stores the remote chart of a version imported before charts were stored.
UPDATE driver_versions SET chart = @chart
WHERE name = @name AND version = @version AND chart IS NULL;

-- name: GetDriverCatalogueGeneration :one
-- What identifies the catalogue's content: versions are immutable, so any
-- import or removal changes the count or the last id.
SELECT count(*)::bigint AS versions, coalesce(max(id), 0)::bigint AS last_id
FROM driver_versions;

-- name: ListDriverVersionSummaries :many
-- Every version of every driver without the large columns, for the catalogue.
SELECT name, version, title, summary, labels, (icon IS NOT NULL)::boolean AS has_icon, created_at
FROM driver_versions
ORDER BY name, id;

-- name: ListDriverVersions :many
-- The versions of one driver with their content digests, for its version
-- picker and the driver page's cache (driver_versions_name_version_key).
SELECT version, digest
FROM driver_versions
WHERE name = @name
ORDER BY id;

-- name: GetDriverVersion :one
-- One driver version without its icon bytes and bundle archive.
SELECT name, version, title, summary, labels, spec, (icon IS NOT NULL)::boolean AS has_icon,
       readme, digest, created_at, created_by, source, signed_by
FROM driver_versions
WHERE name = @name AND version = @version;

-- name: GetDriverIcon :one
SELECT icon, icon_content_type
FROM driver_versions
WHERE name = @name AND version = @version AND icon IS NOT NULL;

-- name: GetDriverBundle :one
-- The whole bundle as a gzip-compressed tar archive, with the digest of its
-- files and the archive of its remote chart (NULL for a chart in the bundle).
SELECT bundle, digest, chart FROM driver_versions WHERE name = @name AND version = @version;

-- name: GetDriverPermissions :one
-- What a version's chart needs approved, and the approval.
SELECT permissions, permissions_error, approved_permissions, approved_by, approved_at
FROM driver_versions WHERE name = @name AND version = @version;

-- name: SetDriverPermissions :exec
-- Records what a version's chart needs, for a version imported before
-- permissions were recorded.
UPDATE driver_versions SET permissions = @permissions, permissions_error = @permissions_error
WHERE name = @name AND version = @version AND permissions IS NULL AND permissions_error IS NULL;

-- name: ApproveDriverPermissions :one
-- Records what an admin approved for a version (the earlier approval and
-- the new items), only if the approval is still @previous (NULL: none), so
-- that two approvals at once do not lose one's items; returns no row otherwise.
UPDATE driver_versions
SET approved_permissions = @approved, approved_by = @approved_by, approved_at = now()
WHERE name = @name AND version = @version
  AND approved_permissions IS NOT DISTINCT FROM sqlc.narg(previous)::jsonb
RETURNING approved_permissions, approved_by, approved_at;
