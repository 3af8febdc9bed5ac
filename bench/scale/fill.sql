-- Fills a migrated Styrmin database with a long history, set-based: the
-- deployments, their ended tasks (the first task of each deployment its
-- install, then its upgrades, stops, starts, actions and rollbacks in turn), the
-- steps of each task, log lines for the hook step of each action, a revision
-- for each install, upgrade and rollback that succeeded, and an audit entry
-- for each task. Run by scale.Fill inside one transaction, which first sets
-- these settings (set_config, local to the transaction):
--
--   scale.deployments, scale.tasks, scale.steps_per_task  the sizes
--   scale.busiest                                          tasks more for the first deployment, the newest
--   scale.driver, scale.driver_version                    the driver version every deployment uses
--   scale.teams                                            teams scale-team-01, ... holding the deployments in
--                                                          turn (0: every deployment in the team default)
--
-- Nothing holds a deployment (holder_task_id NULL), every task is top-level
-- (root_task_id = id) and has ended; tasks are spread over the deployments in
-- turn, one every five minutes, the newest now, but the scale.busiest newest,
-- which all go to the first deployment. The kinds go round per
-- deployment, shifted by one from a deployment to the next, so that the
-- newest tasks of all deployments are of every kind too.

CREATE TEMP TABLE scale_teams ON COMMIT DROP AS
WITH inserted AS (
    INSERT INTO teams (name)
    SELECT format('scale-team-%s', lpad(n::text, 2, '0'))
    FROM generate_series(1, current_setting('scale.teams')::int) AS n
    ORDER BY n
    RETURNING id
)
SELECT row_number() OVER (ORDER BY id)::int AS seq, id FROM inserted;

-- Deployment n goes to team (n - 1) % scale.teams + 1: scale-0001 to
-- scale-team-01, with every scale.teams-th deployment after it.
CREATE TEMP TABLE scale_deployments ON COMMIT DROP AS
WITH inserted AS (
    INSERT INTO deployments (name, namespace, driver_name, driver_version, app_version, parameters,
                             secret_names, status, components, created_by, created_at, updated_at, team_id)
    SELECT format('scale-%s', lpad(n::text, 4, '0')), format('scale-%s', lpad(n::text, 4, '0')),
           current_setting('scale.driver'), current_setting('scale.driver_version'), '1.27.0',
           jsonb_build_object('site_title', format('Site %s', n), 'replicas', 2),
           '{}', 'deployed', '{}', 'scale', now() - interval '1 year', now(),
           coalesce((SELECT id FROM scale_teams
                     WHERE seq = (n - 1) % nullif(current_setting('scale.teams')::int, 0) + 1), default_team_id())
    FROM generate_series(1, current_setting('scale.deployments')::int) AS n
    ORDER BY n
    RETURNING id, name, team_id
)
SELECT row_number() OVER (ORDER BY id)::int AS seq, id, name, team_id FROM inserted;

CREATE TEMP TABLE scale_tasks ON COMMIT DROP AS
WITH numbered AS (
    SELECT n, d.id AS deployment_id,
           CASE WHEN n <= current_setting('scale.deployments')::int THEN 'install'
                ELSE (ARRAY['upgrade', 'stop', 'start', 'action', 'upgrade', 'rollback'])
                         [((n - 1) / current_setting('scale.deployments')::int + (n - 1) % current_setting('scale.deployments')::int) % 6 + 1]
           END AS kind,
           CASE WHEN n % 23 = 0 THEN 'failed' WHEN n % 61 = 0 THEN 'canceled' ELSE 'succeeded' END AS status,
           now() - make_interval(mins => 5 * (current_setting('scale.tasks')::int + current_setting('scale.busiest')::int - n)) AS created_at
    FROM generate_series(1, current_setting('scale.tasks')::int + current_setting('scale.busiest')::int) AS n
    JOIN scale_deployments d ON d.seq = CASE WHEN n > current_setting('scale.tasks')::int THEN 1
                                             ELSE (n - 1) % current_setting('scale.deployments')::int + 1 END
),
inserted AS (
    INSERT INTO tasks (id, deployment_id, kind, status, inputs, result, message, root_task_id,
                       created_by, created_at, started_at, ended_at)
    OVERRIDING SYSTEM VALUE
    SELECT id, deployment_id, kind, status,
           jsonb_build_object(
               'driver_version', current_setting('scale.driver_version'), 'app_version', '1.27.0',
               'parameters', jsonb_build_object('site_title', format('Site of task %s', n), 'replicas', 2,
                                                'hostname', format('site-%s.example.com', n)),
               'components', jsonb_build_array('web'),
               'comment', 'Filled by bench/scale: a task of a long history, with inputs of a realistic size.'),
           CASE WHEN status = 'succeeded' THEN jsonb_build_object(
               'revision', n, 'notes', 'Release upgraded: 3 resources changed, 2 unchanged.',
               'components', jsonb_build_object('web', jsonb_build_object('ready', 2, 'replicas', 2)),
               'duration_seconds', 42.5) END,
           CASE status WHEN 'failed' THEN 'Component web did not become ready within 5m0s.'
                       WHEN 'canceled' THEN 'Cancelled by scale-operator.' ELSE '' END,
           id, 'scale-operator', created_at, created_at + interval '1 second', created_at + interval '45 seconds'
    FROM (SELECT nextval(pg_get_serial_sequence('tasks', 'id')) AS id, *
          FROM (SELECT * FROM numbered ORDER BY n) AS in_order) AS t
    RETURNING id, deployment_id, kind, status, created_at, started_at, ended_at
)
SELECT * FROM inserted;

-- A hook step (the action's run) is the third step of an action task.
INSERT INTO steps (task_id, position, kind, title, status, message, detail, started_at, ended_at)
SELECT t.id, p,
       CASE WHEN t.kind = 'action' AND p = 3 THEN 'hook'
            ELSE (ARRAY['validate', 'render', 'namespace', 'helm', 'wait', 'component'])[(p - 1) % 6 + 1] END,
       CASE WHEN t.kind = 'action' AND p = 3 THEN 'Run action backup'
            ELSE format('Step %s of the %s', p, t.kind) END,
       CASE WHEN t.status = 'failed' AND p = current_setting('scale.steps_per_task')::int THEN 'failed'
            WHEN t.status = 'canceled' AND p = current_setting('scale.steps_per_task')::int THEN 'canceled'
            ELSE 'succeeded' END,
       format('Deployment web: 2 of 2 replicas ready after %s seconds', p),
       CASE WHEN t.kind = 'action' AND p = 3
            THEN jsonb_build_object('action', 'backup', 'job', format('scale-job-%s', t.id))
            ELSE '{}'::jsonb END,
       t.started_at + make_interval(secs => 4 * (p - 1)), t.started_at + make_interval(secs => 4 * p)
FROM scale_tasks t CROSS JOIN generate_series(1, current_setting('scale.steps_per_task')::int) AS p;

INSERT INTO step_logs (step_id, seq, level, message, logged_at)
SELECT s.id, l, (ARRAY['INFO', 'INFO', 'WARNING', 'INFO'])[l],
       (ARRAY['Connecting to the database', 'Dumping 42 tables',
              'Table audit is large: this may take a while', 'Backup written to s3://backups/site.dump'])[l],
       s.started_at + make_interval(secs => l)
FROM scale_tasks t
JOIN steps s ON s.task_id = t.id AND s.position = 3 AND s.kind = 'hook'
CROSS JOIN generate_series(1, 4) AS l
WHERE t.kind = 'action';

INSERT INTO revisions (deployment_id, revision, task_id, driver_version, app_version, parameters, created_at)
SELECT deployment_id, row_number() OVER (PARTITION BY deployment_id ORDER BY id), id,
       current_setting('scale.driver_version'), '1.27.0', jsonb_build_object('site_title', 'Site', 'replicas', 2),
       ended_at
FROM scale_tasks
WHERE kind IN ('install', 'upgrade', 'rollback') AND status = 'succeeded';

INSERT INTO audit_entries (at, actor_name, actor_via, actor_role, actor_address, action,
                           target_kind, target_name, outcome, reason, detail, team_id)
SELECT t.created_at, 'scale-operator', 'session', 'operator', '10.0.0.7', 'deployment.' || t.kind,
       'deployment', d.name, 'allowed', '', jsonb_build_object('task', t.id::text), d.team_id
FROM scale_tasks t JOIN scale_deployments d ON d.id = t.deployment_id
ORDER BY t.id;
