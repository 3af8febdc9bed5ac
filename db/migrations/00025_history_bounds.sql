-- What a page and the retention cost stays flat as the history grows
-- (db/plans_test.go checks every query that reads a history table against a
-- long history). The indexes say which query each serves.
--
-- And what goes with a task when the retention prunes it (executor.Prune):
-- its action tokens and webhook deliveries go with it; the revisions it made
-- stay, since a rollback needs them, and forget their task.

-- +goose Up
-- ReleaseDeployment (is a task of the chain still running?) and the pruning
-- of a chain (its tasks; the check of tasks_root_task_fkey).
CREATE INDEX tasks_root_idx ON tasks (root_task_id);
-- FindTasks filtered by status, or by kind: a page of the matching
-- top-level tasks, newest first, however rare the match.
CREATE INDEX tasks_status_idx ON tasks (status, id DESC) WHERE parent_step_id IS NULL;
CREATE INDEX tasks_kind_idx ON tasks (kind, id DESC) WHERE parent_step_id IS NULL;
-- PruneTaskChains: the top-level tasks that ended before the retention's
-- cut-off, oldest first.
CREATE INDEX tasks_ended_idx ON tasks (ended_at) WHERE parent_step_id IS NULL;
-- ListTaskSecretsNotUnder and CountSecretsNotUnder: only queued and running
-- tasks hold sealed inputs (FinishTask clears them).
CREATE INDEX tasks_secret_inputs_idx ON tasks (id) WHERE secret_inputs IS NOT NULL;
-- RevokeTaskActionTokens, and the tokens that go with a pruned task.
CREATE INDEX action_tokens_task_idx ON action_tokens (task_id);
-- The deliveries that go with a pruned task, the revisions that forget it.
CREATE INDEX webhook_deliveries_task_idx ON webhook_deliveries (task_id);
CREATE INDEX revisions_task_idx ON revisions (task_id);

ALTER TABLE action_tokens
    DROP CONSTRAINT action_tokens_task_id_fkey,
    ADD CONSTRAINT action_tokens_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks (id) ON DELETE CASCADE,
    DROP CONSTRAINT action_tokens_step_id_fkey,
    ADD CONSTRAINT action_tokens_step_id_fkey FOREIGN KEY (step_id) REFERENCES steps (id) ON DELETE CASCADE;
ALTER TABLE webhook_deliveries
    DROP CONSTRAINT webhook_deliveries_task_id_fkey,
    ADD CONSTRAINT webhook_deliveries_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks (id) ON DELETE CASCADE;
-- task_id is NULL once the retention pruned the revision's task.
ALTER TABLE revisions
    ALTER COLUMN task_id DROP NOT NULL,
    DROP CONSTRAINT revisions_task_id_fkey,
    ADD CONSTRAINT revisions_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks (id) ON DELETE SET NULL;

-- +goose Down
-- revisions.task_id stays nullable: the revisions of pruned tasks have none.
ALTER TABLE revisions
    DROP CONSTRAINT revisions_task_id_fkey,
    ADD CONSTRAINT revisions_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks (id);
ALTER TABLE webhook_deliveries
    DROP CONSTRAINT webhook_deliveries_task_id_fkey,
    ADD CONSTRAINT webhook_deliveries_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks (id);
ALTER TABLE action_tokens
    DROP CONSTRAINT action_tokens_step_id_fkey,
    ADD CONSTRAINT action_tokens_step_id_fkey FOREIGN KEY (step_id) REFERENCES steps (id),
    DROP CONSTRAINT action_tokens_task_id_fkey,
    ADD CONSTRAINT action_tokens_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks (id);
DROP INDEX revisions_task_idx;
DROP INDEX webhook_deliveries_task_idx;
DROP INDEX action_tokens_task_idx;
DROP INDEX tasks_secret_inputs_idx;
DROP INDEX tasks_ended_idx;
DROP INDEX tasks_kind_idx;
DROP INDEX tasks_status_idx;
DROP INDEX tasks_root_idx;
