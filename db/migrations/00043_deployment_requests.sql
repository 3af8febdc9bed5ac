-- What each deployment's pods request, CPU in millicores and memory in
-- bytes, summed from its chart rendered with its values (package requests)
-- when its install or upgrade was planned: a team's CPU and memory quotas
-- (teams.max_cpu_millis, max_memory_bytes) are checked against the sum over
-- its live deployments, one SQL SUM (see docs/security.md, Teams). NULL for
-- a deployment planned before: it counts 0 until its next upgrade.

-- +goose Up
ALTER TABLE deployments ADD COLUMN requested_cpu_millis bigint CHECK (requested_cpu_millis >= 0);
ALTER TABLE deployments ADD COLUMN requested_memory_bytes bigint CHECK (requested_memory_bytes >= 0);

-- +goose Down
ALTER TABLE deployments DROP COLUMN requested_memory_bytes;
ALTER TABLE deployments DROP COLUMN requested_cpu_millis;
