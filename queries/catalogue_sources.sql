-- name: InsertCatalogueSource :one
-- Adds a source, due for its first sync now; no row when the name is taken.
INSERT INTO catalogue_sources (name, kind, url, signed_only, keys, created_by)
VALUES (@name, @kind, @url, @signed_only, @keys, @created_by)
ON CONFLICT (name) DO NOTHING
RETURNING id;

-- name: ListCatalogueSources :many
SELECT id, name, kind, url, signed_only, keys, created_at, created_by, next_sync_at, synced_at, sync_error
FROM catalogue_sources ORDER BY name;

-- name: GetCatalogueSource :one
SELECT id, name, kind, url, signed_only, keys, created_at, created_by, next_sync_at, synced_at, sync_error
FROM catalogue_sources WHERE name = @name;

-- name: LockCatalogueSource :one
-- The source's policy and keys, locked until the transaction ends.
SELECT id, signed_only, keys FROM catalogue_sources WHERE name = @name FOR UPDATE;

-- name: UpdateCatalogueSourcePolicy :exec
UPDATE catalogue_sources SET signed_only = @signed_only, keys = @keys WHERE id = @id;

-- name: DeleteCatalogueSource :execrows
DELETE FROM catalogue_sources WHERE name = @name;

-- name: RequestCatalogueSourceSync :execrows
-- Makes the source due now; the next runner's tick syncs it.
UPDATE catalogue_sources SET next_sync_at = now() WHERE name = @name;

-- name: ClaimDueCatalogueSource :one
-- Claims the source most overdue that no process syncs: it is due again
-- after @every, and no other process claims it before @claim_for ends.
UPDATE catalogue_sources SET
    next_sync_at = now() + sqlc.arg(every)::interval,
    claimed_until = now() + sqlc.arg(claim_for)::interval
WHERE id = (
    SELECT s.id FROM catalogue_sources s
    WHERE s.next_sync_at <= now() AND (s.claimed_until IS NULL OR s.claimed_until < now())
    ORDER BY s.next_sync_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
RETURNING id, name, kind, url, signed_only, keys;

-- name: EndCatalogueSourceSync :exec
UPDATE catalogue_sources SET claimed_until = NULL, synced_at = now(), sync_error = @sync_error WHERE id = @id;

-- name: ListCatalogueSourceTags :many
SELECT tag FROM catalogue_source_versions WHERE source_id = @source_id;

-- name: InsertCatalogueSourceVersion :exec
INSERT INTO catalogue_source_versions (source_id, tag, digest, status, reason, signed_by)
VALUES (@source_id, @tag, @digest, @status, @reason, @signed_by)
ON CONFLICT (source_id, tag) DO NOTHING;

-- name: ListCatalogueSourceVersions :many
SELECT tag, digest, status, reason, signed_by, checked_at
FROM catalogue_source_versions WHERE source_id = @source_id ORDER BY checked_at DESC, tag
LIMIT 200;
