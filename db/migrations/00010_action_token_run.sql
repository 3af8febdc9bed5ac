-- What an action token's primitives need to know of its run: the action it
-- runs (execute_commands hands that action's secret prompts to a Job) and
-- when the action's own timeout ends (a Job never outlives it).

-- +goose Up
ALTER TABLE action_tokens ADD COLUMN action text NOT NULL DEFAULT '';
ALTER TABLE action_tokens ADD COLUMN action_deadline timestamptz;

-- +goose Down
ALTER TABLE action_tokens DROP COLUMN action_deadline;
ALTER TABLE action_tokens DROP COLUMN action;
