-- name: InsertTask :one
INSERT INTO tasks (deployment_id, kind, inputs, parent_step_id, root_task_id, created_by)
VALUES (@deployment_id, @kind, @inputs, sqlc.narg(parent_step_id),
        sqlc.narg(root_task_id), @created_by)
RETURNING *;

-- name: SetTaskRoot :exec
-- Makes a top-level task its own root, once its id is known.
UPDATE tasks SET root_task_id = id WHERE id = @id AND root_task_id IS NULL;

-- name: SetTaskJob :exec
UPDATE tasks SET river_job_id = @river_job_id WHERE id = @id;

-- name: GetTask :one
SELECT * FROM tasks WHERE id = @id;

-- name: LockTask :one
SELECT * FROM tasks WHERE id = @id FOR UPDATE;

-- name: LockDeployment :exec
-- Waits for the transactions that change the deployment's hold (and its
-- queue's hand-over) to commit, and keeps others from changing it until this
-- one does: a claim that read the hold without this lock could read it held
-- by a chain whose end, committing meanwhile, looked for a next task before
-- the claimed task was visible, and neither would start it. FOR NO KEY
-- UPDATE, the lock an UPDATE of the hold takes: a stronger one would also
-- hold up every task inserted for the deployment (its foreign key's check).
SELECT id FROM deployments WHERE id = @id FOR NO KEY UPDATE;

-- name: HoldDeployment :one
-- Gives the deployment to the task chain of root_task_id when no other chain
-- holds it and, for a top-level task, no earlier top-level task still waits:
-- tasks of one deployment run one at a time, in the order they were queued.
-- A nested task runs only under its root's hold while its root runs: never
-- in the name of a chain that has ended.
UPDATE deployments d
SET holder_task_id = @root_task_id::bigint, updated_at = now()
WHERE d.id = @deployment_id
  AND (d.holder_task_id IS NULL OR d.holder_task_id = @root_task_id::bigint)
  AND (@nested::boolean OR NOT EXISTS (
        SELECT 1 FROM tasks t
        WHERE t.deployment_id = d.id AND t.status = 'queued'
          AND t.parent_step_id IS NULL AND t.id < @task_id))
  AND (NOT @nested::boolean OR (d.holder_task_id = @root_task_id::bigint AND EXISTS (
        SELECT 1 FROM tasks r WHERE r.id = @root_task_id::bigint AND r.status = 'running')))
RETURNING d.id;

-- name: ReleaseDeployment :execrows
-- Frees the deployment of the chain of root_task_id once its root has ended
-- (it is not running, nor queued again to resume) and no task of the chain
-- runs: the last one to end frees it.
UPDATE deployments d SET holder_task_id = NULL, updated_at = now()
WHERE d.id = @deployment_id AND d.holder_task_id = @root_task_id::bigint
  AND NOT EXISTS (
        SELECT 1 FROM tasks t
        WHERE t.root_task_id = @root_task_id::bigint
          AND (t.status = 'running' OR (t.id = @root_task_id::bigint AND t.status = 'queued')));

-- name: StartTask :one
-- Starts a queued task under a new lease.
UPDATE tasks
SET status = 'running', runner = @runner::text, heartbeat_at = now(), lease = lease + 1,
    started_at = coalesce(started_at, now()), message = ''
WHERE id = @id AND status = 'queued'
RETURNING *;

-- name: BeatTask :one
-- Renews the heartbeat of a task whose lease its run still holds and says
-- whether someone asked to cancel it; no row means the run lost the task.
UPDATE tasks SET heartbeat_at = now()
WHERE id = @id AND lease = @lease AND status = 'running'
RETURNING cancel_requested_by;

-- name: RequestCancel :one
-- Asks the runner of a running task to stop it.
UPDATE tasks SET cancel_requested_by = @by::text
WHERE id = @id AND status = 'running'
RETURNING id;

-- name: FinishTask :one
-- Records how a running task ended (under its run's lease: Run.Fenced).
UPDATE tasks
SET status = @status, result = @result, message = @message, ended_at = now(),
    heartbeat_at = NULL, secret_inputs = NULL
WHERE id = @id AND status = 'running'
RETURNING *;

-- name: RequeueTask :one
-- Puts a task whose runner died back in the queue, to run again from the
-- start (under its recovery's lease: Run.Fenced).
UPDATE tasks
SET status = 'queued', runner = NULL, heartbeat_at = NULL, message = @message
WHERE id = @id AND status = 'running'
RETURNING *;

-- name: StaleTasks :many
-- Running tasks whose run has not renewed the heartbeat in time.
SELECT id FROM tasks
WHERE status = 'running' AND heartbeat_at < now() - make_interval(secs => @stale_after_seconds::float8)
ORDER BY id;

-- name: TakeOverTask :one
-- Takes a stale running task over for recovery, under a new lease: the
-- stale run's writes are refused from now on.
UPDATE tasks SET runner = @runner::text, heartbeat_at = now(), lease = lease + 1
WHERE id = @id AND status = 'running'
  AND heartbeat_at < now() - make_interval(secs => @stale_after_seconds::float8)
RETURNING *;

-- name: HoldLease :one
-- Locks a running task's row while its lease is still lease: a transaction
-- that holds it writes for the run that owns the task, and no process takes
-- the task over until it commits.
SELECT id FROM tasks WHERE id = @id AND lease = @lease AND status = 'running' FOR SHARE;

-- name: CancelQueuedTask :one
UPDATE tasks SET status = 'canceled', message = @message, ended_at = now(), secret_inputs = NULL
WHERE id = @id AND status = 'queued'
RETURNING *;

-- name: NextQueuedTask :one
-- The first waiting top-level task of a deployment that no task holds: the
-- one to hand the deployment over to.
SELECT t.* FROM tasks t JOIN deployments d ON d.id = t.deployment_id
WHERE t.deployment_id = @deployment_id AND t.status = 'queued'
  AND t.parent_step_id IS NULL AND d.holder_task_id IS NULL
ORDER BY t.id
LIMIT 1;

-- name: QueuePositions :many
-- For each queued top-level task of task_ids, how many top-level tasks of
-- its deployment wait before it (tasks_queued_idx), in one round trip for a
-- page of tasks.
SELECT t.id AS task_id,
       (SELECT count(*) FROM tasks w
        WHERE w.deployment_id = t.deployment_id AND w.status = 'queued'
          AND w.parent_step_id IS NULL AND w.id < t.id) AS position
FROM tasks t
WHERE t.id = ANY(@task_ids::bigint[]) AND t.status = 'queued' AND t.parent_step_id IS NULL
ORDER BY t.id;

-- name: ListTasks :many
-- A page of a deployment's top-level tasks, newest first, before a task id
-- (the largest bigint for the newest; see FindTeamTasks), each with how many steps it has
-- (steps_task_position_key).
SELECT sqlc.embed(t), (SELECT count(*) FROM steps s WHERE s.task_id = t.id) AS step_count
FROM tasks t
WHERE t.deployment_id = @deployment_id AND t.parent_step_id IS NULL
  AND t.id < @before_id::bigint
ORDER BY t.id DESC
LIMIT @page_size;

-- name: ListNestedTasks :many
-- The tasks that the given steps started.
SELECT * FROM tasks WHERE parent_step_id = ANY(@step_ids::bigint[]) ORDER BY id;

-- name: FindTasks :many
-- A page of the top-level tasks of every deployment, newest first, before a
-- task id (the largest bigint for the newest; see FindTeamTasks), each with
-- its deployment's name; the filters keep the tasks of that status, of that
-- kind ('' for any). A member's page is FindTeamTasks; a deployment's,
-- FindDeploymentTasks.
SELECT sqlc.embed(t), d.name AS deployment_name
FROM tasks t JOIN deployments d ON d.id = t.deployment_id
WHERE t.parent_step_id IS NULL AND t.id < @before_id::bigint
  AND (@status::text = '' OR t.status = @status::text)
  AND (@kind::text = '' OR t.kind = @kind::text)
ORDER BY t.id DESC
LIMIT @page_size;

-- name: FindTeamTasks :many
-- FindTasks for a member, with no deployment named: the top-level tasks of
-- the teams in team_ids only (what a member may see: the visibility rule
-- lives here), newest first, before a task id (the largest bigint for the
-- newest). It takes the newest page of each team through tasks_team_idx,
-- then the newest page of those: bounded by the member's teams and the
-- page, never by the teams' deployments or their history, in a custom plan
-- and in the generic one a prepared statement gets after five runs alike
-- (which is why before_id has no "0 for any": an OR there would leave the
-- generic plan reading every newer task of a team).
SELECT sqlc.embed(t), d.name AS deployment_name
FROM (
    SELECT newest.id
    FROM unnest(@team_ids::bigint[]) AS team (id)
    CROSS JOIN LATERAL (
        SELECT l.id FROM tasks l
        WHERE l.team_id = team.id AND l.parent_step_id IS NULL AND l.id < @before_id::bigint
          AND (@status::text = '' OR l.status = @status::text)
          AND (@kind::text = '' OR l.kind = @kind::text)
        ORDER BY l.id DESC
        LIMIT @page_size
    ) newest
    ORDER BY newest.id DESC
    LIMIT @page_size
) page
JOIN tasks t ON t.id = page.id
JOIN deployments d ON d.id = t.deployment_id
ORDER BY t.id DESC;

-- name: FindDeploymentTasks :many
-- FindTasks of the deployments of a name (a deleted one's name may have
-- been used again, in another team): with only_teams, a member's, of those
-- in the teams in team_ids only. Newest first, before a task id (the
-- largest bigint for the newest): a page of each of those deployments
-- through tasks_deployment_idx, then the newest page of them.
SELECT sqlc.embed(t), page.deployment_name
FROM (
    SELECT newest.id, d.name AS deployment_name
    FROM deployments d
    CROSS JOIN LATERAL (
        SELECT l.id FROM tasks l
        WHERE l.deployment_id = d.id AND l.parent_step_id IS NULL AND l.id < @before_id::bigint
          AND (@status::text = '' OR l.status = @status::text)
          AND (@kind::text = '' OR l.kind = @kind::text)
        ORDER BY l.id DESC
        LIMIT @page_size
    ) newest
    WHERE d.name = @deployment_name AND (NOT @only_teams::boolean OR d.team_id = ANY (@team_ids::bigint[]))
    ORDER BY newest.id DESC
    LIMIT @page_size
) page
JOIN tasks t ON t.id = page.id
ORDER BY t.id DESC;

-- name: GetTaskOfDeployment :one
-- A task with its deployment's name.
SELECT sqlc.embed(t), d.name AS deployment_name
FROM tasks t JOIN deployments d ON d.id = t.deployment_id
WHERE t.id = @id;

-- name: TaskDepth :one
-- How many tasks started this one, one through the other: 0 for a top-level
-- task, 1 for a task an action of a top-level task started, and so on.
WITH RECURSIVE up AS (
    SELECT t.parent_step_id, 0 AS depth FROM tasks t WHERE t.id = @id
    UNION ALL
    SELECT p.parent_step_id, up.depth + 1
    FROM up JOIN steps s ON s.id = up.parent_step_id JOIN tasks p ON p.id = s.task_id
)
SELECT max(depth)::int AS depth FROM up;

-- name: UnfinishedLinkedTasks :many
-- The queued and running tasks that the steps of a task started (only step
-- step_id's, when not 0), and the tasks those started in turn.
WITH RECURSIVE linked AS (
    SELECT t.id FROM tasks t JOIN steps s ON s.id = t.parent_step_id
    WHERE s.task_id = @task_id AND (@step_id::bigint = 0 OR s.id = @step_id::bigint)
    UNION
    SELECT t.id FROM linked l JOIN steps s ON s.task_id = l.id JOIN tasks t ON t.parent_step_id = s.id
)
SELECT t.id, t.status, t.cancel_requested_by FROM tasks t
WHERE t.id IN (SELECT id FROM linked) AND t.status IN ('queued', 'running')
ORDER BY t.id;

-- name: LinkedTaskOrigin :one
-- The state of what started a nested task: the step that started it, that
-- step's task and the chain's root task.
SELECT s.status AS step_status, s.title AS step_title, p.id AS parent_id, p.status AS parent_status,
       r.id AS root_id, r.status AS root_status
FROM tasks t
JOIN steps s ON s.id = t.parent_step_id
JOIN tasks p ON p.id = s.task_id
JOIN tasks r ON r.id = t.root_task_id
WHERE t.id = @id;

-- name: WakeQueue :exec
-- Sends, in the inserting transaction, the notification on which River's
-- producers of a queue fetch new jobs (channel <schema>.river_insert, payload
-- {"queue": "<name>"}, as River's own client writes it: PostgreSQL delivers
-- identical notifications of one transaction once). River's client skips its
-- own when it sent one for that queue less than a fetch cooldown earlier.
SELECT pg_notify(current_schema() || '.river_insert', '{"queue": ' || to_json(@queue::text)::text || '}');

-- name: SetTaskSecretInputs :exec
-- Stores a task's sealed secret inputs, once its id (their place) is known.
UPDATE tasks SET secret_inputs = @secret_inputs WHERE id = @id;

-- name: ListTaskSecretsNotUnder :many
-- ListDeploymentSecretsNotUnder for the secret inputs of tasks.
SELECT id, deployment_id, secret_inputs FROM tasks
WHERE secret_inputs IS NOT NULL AND substring(secret_inputs FROM 1 FOR length(@header::bytea)) <> @header::bytea
  AND id > @after
ORDER BY id LIMIT @page;

-- name: ResealTaskSecrets :execrows
UPDATE tasks SET secret_inputs = @new WHERE id = @id AND secret_inputs = @old;

-- name: QueueStats :one
-- How many tasks wait in the queue and how long the oldest has waited (metrics).
SELECT count(*)::bigint AS queued,
       coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest_seconds
FROM tasks
WHERE status = 'queued';

-- name: PruneTaskChains :one
-- Deletes up to max_chains task chains, oldest first, whose top-level task
-- ended before ended_before, with their steps, log lines, action tokens and
-- webhook deliveries (the foreign keys cascade; revisions stay and forget
-- their task). It keeps every chain that has a task queued or running or
-- holds its deployment, and each deployment's newest top-level task, which
-- the deployments page shows. Chains locked by another prune are skipped.
WITH roots AS (
    SELECT r.id FROM tasks r
    WHERE r.parent_step_id IS NULL AND r.ended_at < @ended_before::timestamptz
      AND r.status IN ('succeeded', 'failed', 'canceled')
      AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.root_task_id = r.id AND t.status IN ('queued', 'running'))
      AND NOT EXISTS (SELECT 1 FROM deployments d WHERE d.holder_task_id = r.id)
      AND EXISTS (SELECT 1 FROM tasks n
                  WHERE n.deployment_id = r.deployment_id AND n.parent_step_id IS NULL AND n.id > r.id)
    ORDER BY r.ended_at
    LIMIT @max_chains
    FOR UPDATE OF r SKIP LOCKED
), pruned AS (
    DELETE FROM tasks t USING roots WHERE t.root_task_id = roots.id
    RETURNING t.root_task_id
)
SELECT count(DISTINCT root_task_id)::bigint AS chains, count(*)::bigint AS tasks FROM pruned;

-- name: ListDeploymentArtefacts :many
-- The artefacts of a deployment, newest first, at most max_rows: the results
-- of its succeeded runs of the actions that declare artefacts (actions)
-- that name one (a string "name"), each with the first later succeeded run
-- of a prune action (prune_actions) whose result lists that name among the
-- ones it deleted (0: none does). The prune runs read are those after the
-- oldest run of the page: a page's cost, whatever the history.
WITH page AS (
    SELECT t.id, t.inputs->>'action' AS action, t.created_by, t.ended_at, s.detail->'result' AS result
    FROM tasks t
    JOIN steps s ON s.task_id = t.id AND s.kind = 'hook'
    WHERE t.deployment_id = @deployment_id AND t.kind = 'action' AND t.status = 'succeeded'
      AND t.inputs->>'action' = ANY(@actions::text[])
      AND jsonb_typeof(s.detail->'result'->'name') = 'string'
    ORDER BY t.id DESC
    LIMIT @max_rows
), deleted AS (
    SELECT p.id, d.name
    FROM tasks p
    JOIN steps ps ON ps.task_id = p.id AND ps.kind = 'hook'
    CROSS JOIN LATERAL jsonb_array_elements_text(
        CASE WHEN jsonb_typeof(ps.detail->'result'->'deleted') = 'array' THEN ps.detail->'result'->'deleted' ELSE '[]'::jsonb END) AS d(name)
    WHERE p.deployment_id = @deployment_id AND p.kind = 'action' AND p.status = 'succeeded'
      AND p.inputs->>'action' = ANY(@prune_actions::text[])
      AND p.id > (SELECT min(id) FROM page)
)
SELECT page.id AS task_id, page.action::text AS action, page.created_by, page.ended_at, page.result::jsonb AS result,
       coalesce((SELECT min(deleted.id) FROM deleted WHERE deleted.name = page.result->>'name' AND deleted.id > page.id), 0)::bigint AS pruned_by
FROM page
ORDER BY page.id DESC;
