-- The secret prompts a schedule's prune action gets (package schedule): the
-- names of the schedule's own secret prompts (sealed in secret_prompts) that
-- its prune action declares as secret prompts too, such as a storage
-- password the backup and the prune both need. A worker unseals them only
-- when it queues the prune after a run, and the prune's task seals them in
-- its secret_inputs as a run's secret prompts are: never in clear in a row.

-- +goose Up
ALTER TABLE action_schedules ADD COLUMN prune_secret_prompts text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE action_schedules DROP COLUMN prune_secret_prompts;
