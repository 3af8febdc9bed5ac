-- A chart that failed to render with the driver's default values (a required
-- parameter without a default, such as a password) is rendered again on its
-- next read, with stand-ins for such parameters (drivers.Driver.SampleValues).

-- +goose Up
UPDATE driver_versions SET permissions_error = NULL WHERE permissions IS NULL;

-- +goose Down
-- Nothing to undo: a version is rendered again on its next read either way.
SELECT 1;
