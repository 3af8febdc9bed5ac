-- name: InsertActionToken :exec
INSERT INTO action_tokens (token_hash, deployment_id, task_id, step_id, expires_at, action, action_deadline)
VALUES (@token_hash, @deployment_id, @task_id, @step_id, @expires_at, @action, @action_deadline);

-- name: RevokeActionTokens :exec
-- Revokes every token of a hook step (its run ended).
UPDATE action_tokens SET revoked_at = now() WHERE step_id = @step_id AND revoked_at IS NULL;

-- name: GetActionToken :one
-- A token that is neither revoked nor expired, with its deployment's name.
SELECT sqlc.embed(t), d.name AS deployment_name
FROM action_tokens t JOIN deployments d ON d.id = t.deployment_id
WHERE t.token_hash = @token_hash AND t.revoked_at IS NULL AND t.expires_at > now();

-- name: InsertStepLog :exec
INSERT INTO step_logs (step_id, seq, level, message)
VALUES (@step_id, @seq, @level, @message);

-- name: ListStepLogs :many
SELECT * FROM step_logs WHERE step_id = ANY(@step_ids::bigint[]) ORDER BY step_id, seq;

-- name: RevokeTaskActionTokens :exec
-- Revokes every token of a task's hook steps (the task is recovered after its
-- process died, so no step's own revocation ran).
UPDATE action_tokens SET revoked_at = now() WHERE task_id = @task_id AND revoked_at IS NULL;
