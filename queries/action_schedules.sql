-- name: InsertActionSchedule :one
INSERT INTO action_schedules (deployment_id, action, cron, time_zone, prompts, overlap, missed, author_id, next_at,
                              keep_last, keep_days, prune_action, prune_prompts, prune_secret_prompts)
VALUES (@deployment_id, @action, @cron, @time_zone, @prompts, @overlap, @missed, @author_id, @next_at,
        sqlc.narg(keep_last), sqlc.narg(keep_days), @prune_action, @prune_prompts, coalesce(@prune_secret_prompts::text[], '{}'))
RETURNING id;

-- name: SetActionScheduleSecretPrompts :exec
-- Stores the sealed secret prompts once the row's id (their place) is known.
UPDATE action_schedules SET secret_prompts = @secret_prompts WHERE id = @id;

-- name: ListActionSchedules :many
-- The schedules of a deployment, oldest first, with their author's name.
SELECT s.id, s.action, s.cron, s.time_zone, s.prompts, s.overlap, s.missed, s.paused, s.next_at,
       s.last_slot, s.last_outcome, s.last_task_id, s.created_at, s.updated_at, u.username AS author,
       s.keep_last, s.keep_days, s.prune_action, s.last_prune_outcome, s.last_prune_task_id
FROM action_schedules s JOIN users u ON u.id = s.author_id
WHERE s.deployment_id = @deployment_id
ORDER BY s.id;

-- name: SetActionSchedulePaused :execrows
-- Pauses or resumes a schedule of a deployment; a resumed one starts again
-- at next_at (its first slot after the resume: the slots of the pause are
-- not missed ones).
UPDATE action_schedules
SET paused = @paused, next_at = CASE WHEN @paused::boolean THEN next_at ELSE @next_at::timestamptz END,
    updated_at = now()
WHERE id = @id AND deployment_id = @deployment_id;

-- name: GetActionScheduleCron :one
SELECT cron, time_zone FROM action_schedules WHERE id = @id AND deployment_id = @deployment_id;

-- name: DeleteActionSchedule :execrows
DELETE FROM action_schedules WHERE id = @id AND deployment_id = @deployment_id;

-- name: TakeDueActionSchedules :many
-- Takes the schedules due at now of live deployments, locked until the
-- transaction ends; rows another worker holds are skipped (it is running
-- them), so that each due slot is taken once.
SELECT s.id, s.deployment_id, d.name AS deployment_name, s.action, s.cron, s.time_zone, s.prompts,
       s.secret_prompts, s.overlap, s.missed, s.next_at, s.author_id, u.username AS author,
       u.role AS author_role, u.disabled AS author_disabled, s.prune_action
FROM action_schedules s
JOIN deployments d ON d.id = s.deployment_id
JOIN users u ON u.id = s.author_id
WHERE NOT s.paused AND s.next_at <= @now AND d.deleted_at IS NULL
ORDER BY s.next_at, s.id
LIMIT @max_rows
FOR UPDATE OF s SKIP LOCKED;

-- name: AdvanceActionSchedule :exec
-- Records what came of a taken slot and moves the schedule to its next one.
UPDATE action_schedules
SET next_at = @next_at, last_slot = @last_slot, last_outcome = @last_outcome,
    last_task_id = sqlc.narg(last_task_id), updated_at = now()
WHERE id = @id;

-- name: ActiveTaskOfDeployment :one
-- The oldest task of a deployment that is queued or running, if any: a
-- busy deployment.
SELECT id FROM tasks
WHERE deployment_id = @deployment_id AND status IN ('queued', 'running')
ORDER BY id LIMIT 1;

-- name: ListActionScheduleSecretsNotUnder :many
-- ListDeploymentSecretsNotUnder for schedules' secret prompts.
SELECT id, secret_prompts FROM action_schedules
WHERE secret_prompts IS NOT NULL AND substring(secret_prompts FROM 1 FOR length(@header::bytea)) <> @header::bytea
  AND id > @after
ORDER BY id LIMIT @page;

-- name: ResealActionScheduleSecrets :execrows
UPDATE action_schedules SET secret_prompts = @new WHERE id = @id AND secret_prompts = @old;

-- name: InsertActionScheduleRun :exec
-- Records a run of a schedule with a retention, in the transaction that
-- queues it: once its task ends, a worker prunes after it (exactly once).
INSERT INTO action_schedule_runs (task_id, schedule_id) VALUES (@task_id, @schedule_id);

-- name: TakeEndedActionScheduleRuns :many
-- Takes the recorded runs whose task ended and that no worker handled yet,
-- locked until the transaction ends; rows another worker holds are skipped.
SELECT r.task_id, t.status AS task_status, s.id AS schedule_id, s.deployment_id, d.name AS deployment_name,
       s.prune_action, s.prune_prompts, s.prune_secret_prompts, s.secret_prompts, s.author_id, u.username AS author,
       u.role AS author_role, u.disabled AS author_disabled
FROM action_schedule_runs r
JOIN tasks t ON t.id = r.task_id
JOIN action_schedules s ON s.id = r.schedule_id
JOIN deployments d ON d.id = s.deployment_id
JOIN users u ON u.id = s.author_id
WHERE r.prune_outcome IS NULL AND t.status IN ('succeeded', 'failed', 'canceled')
ORDER BY r.task_id
LIMIT @max_rows
FOR UPDATE OF r SKIP LOCKED;

-- name: FinishActionScheduleRun :exec
-- Records what came of the prune after a run, on the run and its schedule.
WITH run AS (
    UPDATE action_schedule_runs SET prune_outcome = @prune_outcome, prune_task_id = sqlc.narg(prune_task_id)
    WHERE task_id = @task_id
    RETURNING schedule_id
)
UPDATE action_schedules
SET last_prune_outcome = @prune_outcome, last_prune_task_id = sqlc.narg(prune_task_id), updated_at = now()
WHERE id = (SELECT schedule_id FROM run);

-- name: LockActionSchedule :one
-- A schedule of a deployment as an edit reads it, locked until the
-- transaction ends: its action and prompt values (checked again with the
-- new retention), whether it is paused and its retention.
SELECT action, cron, time_zone, overlap, missed, prompts, secret_prompts, paused, keep_last, keep_days
FROM action_schedules WHERE id = @id AND deployment_id = @deployment_id
FOR UPDATE;

-- name: UpdateActionSchedule :execrows
-- Edits a schedule's cron, time zone, policies and retention (with its prune
-- action, its plain prompts and the names of its secret ones); a paused one keeps its next_at until it resumes.
UPDATE action_schedules
SET cron = @cron, time_zone = @time_zone, overlap = @overlap, missed = @missed,
    keep_last = sqlc.narg(keep_last), keep_days = sqlc.narg(keep_days),
    prune_action = @prune_action, prune_prompts = @prune_prompts, prune_secret_prompts = coalesce(@prune_secret_prompts::text[], '{}'),
    next_at = CASE WHEN paused THEN next_at ELSE @next_at::timestamptz END, updated_at = now()
WHERE id = @id AND deployment_id = @deployment_id;
