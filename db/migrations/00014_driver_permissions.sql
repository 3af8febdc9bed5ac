-- What a driver version's chart creates beyond its release's namespace
-- (permissions.Set as JSON: cluster-scoped kinds, kinds of unknown scope,
-- RBAC rules and bindings), rendered with its default values at import, and
-- what an admin approved of it. An install, upgrade or rollback whose
-- rendered manifest needs an item not in approved_permissions is refused.
-- permissions is NULL for a version imported before this (filled on first
-- read) or whose chart did not render (permissions_error says why).

-- +goose Up
ALTER TABLE driver_versions
    ADD COLUMN permissions          jsonb,
    ADD COLUMN permissions_error    text,
    ADD COLUMN approved_permissions jsonb,
    ADD COLUMN approved_by          text,
    ADD COLUMN approved_at          timestamptz;

-- +goose Down
ALTER TABLE driver_versions
    DROP COLUMN permissions,
    DROP COLUMN permissions_error,
    DROP COLUMN approved_permissions,
    DROP COLUMN approved_by,
    DROP COLUMN approved_at;
