-- name: InsertStep :one
INSERT INTO steps (task_id, position, kind, title)
VALUES (@task_id, (SELECT coalesce(max(position), 0) + 1 FROM steps WHERE task_id = @task_id),
        @kind, @title)
RETURNING *;

-- name: EndStep :exec
UPDATE steps SET status = @status, message = @message, detail = @detail, ended_at = now()
WHERE id = @id;

-- name: UpdateStepDetail :exec
UPDATE steps SET message = @message, detail = @detail WHERE id = @id;

-- name: EndRunningSteps :exec
-- Ends the steps a crashed runner left running.
UPDATE steps SET status = @status, message = @message, ended_at = now()
WHERE task_id = @task_id AND status = 'running';

-- name: ListSteps :many
SELECT * FROM steps WHERE task_id = @task_id ORDER BY position;

-- name: ListStepsOfTasks :many
SELECT * FROM steps WHERE task_id = ANY(@task_ids::bigint[]) ORDER BY task_id, position;
