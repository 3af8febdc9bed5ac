-- A task's lease is the generation of the run that owns it: it grows by one
-- each time a process starts the task or takes it over from a runner whose
-- heartbeat stopped. Every write of a run names the lease it was given and
-- is refused once the lease moved on (executor.Run.Fenced), so a run that
-- lost its task to a recovery can no longer record anything for it.

-- +goose Up
ALTER TABLE tasks ADD COLUMN lease bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE tasks DROP COLUMN lease;
