-- A team's policy: where its deployments may go, which drivers it may
-- deploy, and how many deployments it may hold (see docs/security.md, Teams).
-- Every column NULL is "no rule of the team's own": the global namespace
-- policy, every driver, no quota. Package teams owns the columns' meaning;
-- package deployment enforces them at an install's plan.

-- +goose Up
-- namespaces: glob patterns (as namespace_policy.allowed) that replace the
-- global policy's patterns for the team's deployments; the reserved
-- namespaces stay refused unless named exactly.
ALTER TABLE teams ADD COLUMN namespaces text[];
-- drivers: the drivers the team may deploy, each a driver name or a label
-- selector written "label:KEY=VALUE".
ALTER TABLE teams ADD COLUMN drivers text[];
-- max_deployments: the most live deployments the team may hold.
ALTER TABLE teams ADD COLUMN max_deployments bigint CHECK (max_deployments >= 0);
-- max_cpu_millis and max_memory_bytes: the most CPU (millicores) and memory
-- the team's deployments may request together, read from their rendered
-- manifests at review.
ALTER TABLE teams ADD COLUMN max_cpu_millis bigint CHECK (max_cpu_millis >= 0);
ALTER TABLE teams ADD COLUMN max_memory_bytes bigint CHECK (max_memory_bytes >= 0);

-- +goose Down
ALTER TABLE teams DROP COLUMN max_memory_bytes;
ALTER TABLE teams DROP COLUMN max_cpu_millis;
ALTER TABLE teams DROP COLUMN max_deployments;
ALTER TABLE teams DROP COLUMN drivers;
ALTER TABLE teams DROP COLUMN namespaces;
