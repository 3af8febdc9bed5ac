-- What a driver version's chart creates is read again on its next read
-- (catalog.Catalog.Permissions): Parse now also names namespaced objects in
-- other namespaces and what the chart's pods need beyond Pod Security's
-- baseline, reads keys case-sensitively and refuses Helm release records, so
-- a set recorded before would leave those items out of the version's own
-- permissions. Approvals are kept: they only ever add items.

-- +goose Up
UPDATE driver_versions SET permissions = NULL, permissions_error = NULL;

-- +goose Down
-- Nothing to undo: a version is rendered again on its next read either way.
SELECT 1;
