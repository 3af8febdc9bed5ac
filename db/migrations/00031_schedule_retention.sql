-- Retention of a schedule's artefacts (package schedule): a schedule of an
-- action that declares artefacts (drivers.Artefacts) may keep the artefacts of
-- its last keep_last runs and/or those of the last keep_days days; after each
-- run that succeeds, a worker queues the driver's prune action
-- (prune_action) with prune_prompts: the retention as keep_last/keep_days,
-- 0 for a rule not set, and the plain prompts the two actions share.
--
-- Exactly once per succeeded run: the transaction that queues a run of such
-- a schedule records it in action_schedule_runs; a worker that finds the
-- run's task ended takes the row FOR UPDATE SKIP LOCKED and, in one
-- transaction, queues the prune (or says why not) and fills prune_outcome.
-- A crash before that commit leaves the row for the next look; after it,
-- the row is done.

-- +goose Up
ALTER TABLE action_schedules
    ADD COLUMN keep_last          integer CHECK (keep_last BETWEEN 1 AND 1000),
    ADD COLUMN keep_days          integer CHECK (keep_days BETWEEN 1 AND 3650),
    ADD COLUMN prune_action       text    NOT NULL DEFAULT '',
    ADD COLUMN prune_prompts      jsonb   NOT NULL DEFAULT '{}'::jsonb,
    ADD COLUMN last_prune_outcome text    NOT NULL DEFAULT '',
    ADD COLUMN last_prune_task_id bigint  REFERENCES tasks (id) ON DELETE SET NULL,
    ADD CONSTRAINT action_schedules_retention_check
        CHECK ((keep_last IS NULL AND keep_days IS NULL) = (prune_action = ''));

CREATE TABLE action_schedule_runs (
    task_id       bigint PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
    schedule_id   bigint NOT NULL REFERENCES action_schedules (id) ON DELETE CASCADE,
    -- prune_outcome is NULL until a worker handled the ended run: what came
    -- of it ("queued task 12", "not pruned: the run failed", ...).
    prune_outcome text,
    prune_task_id bigint REFERENCES tasks (id) ON DELETE SET NULL
);
CREATE INDEX action_schedule_runs_pending_idx ON action_schedule_runs (task_id) WHERE prune_outcome IS NULL;
CREATE INDEX action_schedule_runs_schedule_idx ON action_schedule_runs (schedule_id);

-- +goose Down
DROP TABLE action_schedule_runs;
ALTER TABLE action_schedules
    DROP CONSTRAINT action_schedules_retention_check,
    DROP COLUMN last_prune_task_id,
    DROP COLUMN last_prune_outcome,
    DROP COLUMN prune_prompts,
    DROP COLUMN prune_action,
    DROP COLUMN keep_days,
    DROP COLUMN keep_last;
