-- The deployments list filters by driver and by namespace (issue 34, "Lists
-- that scale") and still comes a page at a time in the list's order (live
-- ones by name, then deleted ones by name, newest first; see 00027). Each
-- index leads with the filtered column and continues in that order, so that
-- a filtered page reads its own rows only. The search by name (a substring)
-- walks deployments_list_idx in order and stops at the page's end; it reads
-- every deployment only when fewer than a page match.

-- +goose Up
CREATE INDEX deployments_driver_list_idx ON deployments (driver_name, (deleted_at IS NOT NULL), name, (-id));
CREATE INDEX deployments_namespace_list_idx ON deployments (namespace, (deleted_at IS NOT NULL), name, (-id));

-- +goose Down
DROP INDEX deployments_namespace_list_idx;
DROP INDEX deployments_driver_list_idx;
