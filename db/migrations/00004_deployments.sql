-- Deployments, their tasks and the steps of each task.
--
-- A deployment is one installed application. Every change of it is a task,
-- committed together with its River job; a task records its steps as they run.
-- One top-level task holds a deployment at a time (deployments.holder_task_id);
-- tasks started by a step of the holder (nested tasks, parent_step_id) share
-- its hold through their root_task_id.

-- +goose Up
CREATE TABLE deployments (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- name is the Helm release name (the release reference): a DNS label of at
    -- most 49 characters, so that "<name>-job" is a valid Job name.
    name              text        NOT NULL CHECK (name ~ '^[a-z]([a-z0-9-]{0,47}[a-z0-9])?$'),
    namespace         text        NOT NULL,
    -- namespace_created: Styrmin created the namespace and removes it on delete.
    namespace_created boolean     NOT NULL DEFAULT false,
    driver_name       text        NOT NULL,
    driver_version    text        NOT NULL,
    app_version       text        NOT NULL,
    -- parameters holds the non-secret parameter values; secrets holds the
    -- secret ones as AES-256-GCM sealed JSON (package secrets).
    parameters        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    secrets           bytea,
    status            text        NOT NULL DEFAULT 'pending'
                      CHECK (status IN ('pending', 'deployed', 'failed', 'deleting', 'deleted')),
    -- components maps a component name to its state: {"stopped": true,
    -- "replicas": {"StatefulSet/x": 3}} remembers what start restores.
    components        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    holder_task_id    bigint,
    created_by        text        NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    deleted_at        timestamptz,
    CONSTRAINT deployments_driver_fkey FOREIGN KEY (driver_name, driver_version)
        REFERENCES driver_versions (name, version)
);
-- A name is taken while its deployment exists; a deleted one stays in history.
CREATE UNIQUE INDEX deployments_live_name_key ON deployments (name) WHERE deleted_at IS NULL;
CREATE INDEX deployments_name_idx ON deployments (name, id DESC);

CREATE TABLE tasks (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    deployment_id   bigint      NOT NULL REFERENCES deployments (id),
    kind            text        NOT NULL
                    CHECK (kind IN ('install', 'upgrade', 'rollback', 'stop', 'start', 'delete', 'action')),
    status          text        NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
    -- inputs are what the task was asked to do, without secret values;
    -- secret_inputs are the secret values it needs, sealed (package secrets).
    inputs          jsonb       NOT NULL DEFAULT '{}'::jsonb,
    secret_inputs   bytea,
    result          jsonb,
    -- message says how the task ended, or why it waits.
    message         text        NOT NULL DEFAULT '',
    -- parent_step_id links a nested task to the step that started it;
    -- root_task_id is the top-level task of that chain (itself when top-level).
    parent_step_id  bigint,
    root_task_id    bigint,
    river_job_id    bigint,
    -- runner names the process running the task; heartbeat_at is renewed
    -- while it runs, so another process can tell a crashed runner.
    runner          text,
    heartbeat_at    timestamptz,
    created_by      text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    ended_at        timestamptz
);
CREATE INDEX tasks_deployment_idx ON tasks (deployment_id, id DESC);
CREATE INDEX tasks_queued_idx ON tasks (deployment_id, id) WHERE status = 'queued';
CREATE INDEX tasks_running_idx ON tasks (heartbeat_at) WHERE status = 'running';
CREATE INDEX tasks_parent_step_idx ON tasks (parent_step_id) WHERE parent_step_id IS NOT NULL;

CREATE TABLE steps (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id     bigint      NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    position    integer     NOT NULL,
    -- kind says what the step does: validate, render, namespace, helm, wait,
    -- component, recover, cleanup, or hook (an action run; see the actions issue).
    kind        text        NOT NULL,
    title       text        NOT NULL,
    status      text        NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'succeeded', 'failed', 'warning', 'canceled')),
    message     text        NOT NULL DEFAULT '',
    -- detail holds what a kind of step records besides its message (a hook
    -- step's action, error and Job lines; a component's replicas).
    detail      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    started_at  timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz,
    CONSTRAINT steps_task_position_key UNIQUE (task_id, position)
);

ALTER TABLE tasks ADD CONSTRAINT tasks_parent_step_fkey
    FOREIGN KEY (parent_step_id) REFERENCES steps (id);
ALTER TABLE tasks ADD CONSTRAINT tasks_root_task_fkey
    FOREIGN KEY (root_task_id) REFERENCES tasks (id);
ALTER TABLE deployments ADD CONSTRAINT deployments_holder_task_fkey
    FOREIGN KEY (holder_task_id) REFERENCES tasks (id);

-- revisions records, for each Helm revision of a deployment, the driver
-- version, application version and parameters it was made with, so that a
-- rollback restores them.
CREATE TABLE revisions (
    deployment_id   bigint      NOT NULL REFERENCES deployments (id),
    revision        integer     NOT NULL,
    task_id         bigint      NOT NULL REFERENCES tasks (id),
    driver_version  text        NOT NULL,
    app_version     text        NOT NULL,
    parameters      jsonb       NOT NULL,
    secrets         bytea,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (deployment_id, revision)
);

-- +goose Down
DROP TABLE revisions;
ALTER TABLE deployments DROP CONSTRAINT deployments_holder_task_fkey;
ALTER TABLE tasks DROP CONSTRAINT tasks_parent_step_fkey;
DROP TABLE steps;
DROP TABLE tasks;
DROP TABLE deployments;
