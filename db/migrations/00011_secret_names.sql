-- secret_names lists the names of a deployment's set secret parameters, so
-- that pages and lists show which are set without opening deployments.secrets.
-- NULL means not yet recorded (secrets sealed before this migration): the
-- server records them when it starts (deployment.RecordSecretNames).

-- +goose Up
ALTER TABLE deployments ADD COLUMN secret_names text[];
UPDATE deployments SET secret_names = '{}' WHERE secrets IS NULL;

-- +goose Down
ALTER TABLE deployments DROP COLUMN secret_names;
