-- Scheduled runs of a deployment's manual actions (package schedule).
--
-- A schedule names a manual action, a cron expression read in a time zone
-- and the action's prompt values, given once: the plain ones in prompts, the
-- secret ones sealed in secret_prompts (package secrets, place
-- action_schedules/secret_prompts/<id>), as tasks seal theirs. next_at is
-- the next slot the cron gives; a worker that finds it due takes the row
-- FOR UPDATE SKIP LOCKED, moves next_at and last_slot on and queues the
-- action's task in the same transaction: one run per slot, however many
-- workers look. A run is attributed to the schedule and its author
-- (audit_entries.actor_via 'schedule').

-- +goose Up
CREATE TABLE action_schedules (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    deployment_id  bigint      NOT NULL REFERENCES deployments (id),
    action         text        NOT NULL CHECK (action <> ''),
    cron           text        NOT NULL CHECK (cron <> ''),
    time_zone      text        NOT NULL CHECK (time_zone <> ''),
    prompts        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    secret_prompts bytea,
    -- overlap: skip a slot while the deployment has a task queued or
    -- running, or queue the run behind it.
    overlap        text        NOT NULL CHECK (overlap IN ('skip', 'queue')),
    -- missed: after downtime, run once for every slot missed, or skip them.
    missed         text        NOT NULL CHECK (missed IN ('once', 'skip')),
    paused         boolean     NOT NULL DEFAULT false,
    author_id      bigint      NOT NULL REFERENCES users (id),
    next_at        timestamptz NOT NULL,
    -- last_slot is the last slot a worker took (run or skipped); last_outcome
    -- says what came of it, last_task_id the task it queued.
    last_slot      timestamptz,
    last_outcome   text        NOT NULL DEFAULT '',
    last_task_id   bigint      REFERENCES tasks (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX action_schedules_deployment_idx ON action_schedules (deployment_id, id);
CREATE INDEX action_schedules_due_idx ON action_schedules (next_at) WHERE NOT paused;

ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_via_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_via_check
    CHECK (actor_via IN ('session', 'api-token', 'action-token', 'command-line', 'schedule', 'none'));

-- +goose Down
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_via_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_via_check
    CHECK (actor_via IN ('session', 'api-token', 'action-token', 'command-line', 'none')) NOT VALID;
DROP TABLE action_schedules;
