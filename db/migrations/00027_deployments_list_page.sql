-- The deployments list comes a page at a time (ListDeployments has a LIMIT
-- and continues after a key): live ones by name, then deleted ones by name,
-- newest first. This index is that order, so that a page reads its own rows
-- only, however many deployments there are.

-- +goose Up
CREATE INDEX deployments_list_idx ON deployments ((deleted_at IS NOT NULL), name, (-id));

-- +goose Down
DROP INDEX deployments_list_idx;
