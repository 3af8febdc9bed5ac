-- name: InsertStep :one
INSERT INTO steps (task_id, position, kind, title)
VALUES (@task_id, (SELECT coalesce(max(position), 0) + 1 FROM steps WHERE task_id = @task_id),
        @kind, @title)
RETURNING *;

-- name: EndStep :exec
-- Ends a step; its detail keys are merged over what primitives recorded
-- meanwhile (a Job's tail, deleted Jobs).
UPDATE steps SET status = @status, message = @message, detail = detail || @detail::jsonb, ended_at = now()
WHERE id = @id;

-- name: MergeStepDetail :exec
UPDATE steps SET detail = detail || @patch::jsonb WHERE id = @id;

-- name: AddStepDeletedJob :exec
-- Records the name of an ended Job that an action's call deleted (with its
-- pods) before creating its own, once: every call of an action replaces the
-- Job of the same name.
UPDATE steps
SET detail = jsonb_set(detail, '{deleted_jobs}', coalesce(detail->'deleted_jobs', '[]'::jsonb) || to_jsonb(@job::text))
WHERE id = @id AND NOT coalesce(detail->'deleted_jobs', '[]'::jsonb) @> jsonb_build_array(@job::text);

-- name: UpdateStepDetail :exec
UPDATE steps SET message = @message, detail = @detail WHERE id = @id;

-- name: EndRunningSteps :exec
-- Ends the steps a crashed runner left running.
UPDATE steps SET status = @status, message = @message, ended_at = now()
WHERE task_id = @task_id AND status = 'running';

-- name: ListSteps :many
SELECT * FROM steps WHERE task_id = @task_id ORDER BY position;

-- name: ListStepsOfTasks :many
-- The steps of the given tasks, each saying whether it has log lines and
-- whether it started tasks (hook steps), so that those are read only when
-- there are some. Each is a subquery of one row per step, not an EXISTS:
-- for a page of many steps PostgreSQL may run an EXISTS as one hashed read
-- of the whole table (every log line ever written), as the custom plan of a
-- page of 60 tasks did (db.TestAPageReadsAPageInEveryPlan).
SELECT sqlc.embed(s),
       COALESCE((SELECT true FROM step_logs l WHERE l.step_id = s.id LIMIT 1), false)::boolean AS has_logs,
       COALESCE((SELECT true FROM tasks n WHERE n.parent_step_id = s.id LIMIT 1), false)::boolean AS has_tasks
FROM steps s
WHERE s.task_id = ANY(@task_ids::bigint[])
ORDER BY s.task_id, s.position;

-- name: ListStepSummaries :many
-- What the steps of the given tasks add up to, for lists that show a task
-- but not its steps: how many it has, how many ended with a warning, and the
-- first that failed, with its hook's error (or else its message).
SELECT s.task_id,
       count(*)::integer AS step_count,
       (count(*) FILTER (WHERE s.status = 'warning'))::integer AS warnings,
       COALESCE((array_agg(s.title ORDER BY s.position) FILTER (WHERE s.status = 'failed'))[1], '')::text AS failed_step,
       COALESCE((array_agg(COALESCE(NULLIF(CASE WHEN s.kind = 'hook' THEN s.detail->>'error' END, ''), s.message) ORDER BY s.position)
                 FILTER (WHERE s.status = 'failed'))[1], '')::text AS failed_reason
FROM steps s
WHERE s.task_id = ANY(@task_ids::bigint[])
GROUP BY s.task_id;
