-- The remote chart of a driver version whose spec.helm.main names an oci://
-- or https:// location: its archive, downloaded once when the version was
-- imported. Deployments render and review it, never the network. NULL for a
-- chart inside the bundle (the bundle column holds it).

-- +goose Up
ALTER TABLE driver_versions ADD COLUMN chart bytea;

-- +goose Down
ALTER TABLE driver_versions DROP COLUMN chart;
