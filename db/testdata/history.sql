-- A database with a long history, for TestListQueriesUseIndexes: 200
-- deployments with 100 top-level tasks each (the first an install, one in
-- ten an action, the rest upgrades; one in 97 failed), 2,222 nested tasks under hook
-- steps, 4 steps a task with a log line each, 100,000 audit entries, 10,000
-- webhook deliveries with their attempts, 5,000 action tokens and 8,000
-- revisions. The newest top-level task of deployments 1 to 20 waits and that
-- of deployments 21 to 30 runs; everything else has ended. Large enough that
-- reading a history table whole costs far more than a page through an index,
-- small enough to load in seconds.
--
-- Ids are fixed: top-level task i (1 to 20,000) is deployment
-- 1 + (i - 1) % 200's, its steps are 4i - 3 to 4i (4i the hook step); the
-- nested task under the hook step of task 9k is task 20,000 + k, its steps
-- 80,000 + 4k - 3 to 80,000 + 4k.

INSERT INTO driver_versions (name, version, title, spec, digest, bundle)
VALUES ('app', '1.0.0', 'App', '{}', 'sha256:0', '\x00');

INSERT INTO deployments (name, namespace, driver_name, driver_version, app_version, created_by)
SELECT 'app-' || i, 'ns-' || i, 'app', '1.0.0', '1.0', 'admin'
FROM generate_series(1, 200) i;

INSERT INTO tasks (id, deployment_id, kind, status, root_task_id, created_by, created_at, started_at, ended_at)
OVERRIDING SYSTEM VALUE
SELECT i, 1 + (i - 1) % 200, CASE WHEN i <= 200 THEN 'install' WHEN i % 10 = 0 THEN 'action' ELSE 'upgrade' END,
       CASE WHEN i % 97 = 0 THEN 'failed' ELSE 'succeeded' END, i, 'admin', at, at, at + interval '1 minute'
FROM generate_series(1, 20000) i, LATERAL (SELECT now() - (20000 - i) * interval '10 minutes' AS at) t;

INSERT INTO steps (id, task_id, position, kind, title, status, started_at, ended_at)
OVERRIDING SYSTEM VALUE
SELECT 4 * t.id - 4 + p, t.id, p, CASE p WHEN 4 THEN 'hook' ELSE 'helm' END, 'step ' || p, 'succeeded', t.created_at, t.ended_at
FROM tasks t, generate_series(1, 4) p;

INSERT INTO tasks (id, deployment_id, kind, status, parent_step_id, root_task_id, created_by, created_at, started_at, ended_at)
OVERRIDING SYSTEM VALUE
SELECT 20000 + t.id / 9, t.deployment_id, 'action', 'succeeded', 4 * t.id, t.id, 'admin', t.created_at, t.created_at, t.ended_at
FROM tasks t WHERE t.id % 9 = 0;

INSERT INTO steps (id, task_id, position, kind, title, status, started_at, ended_at)
OVERRIDING SYSTEM VALUE
SELECT 80000 + 4 * (t.id - 20000) - 4 + p, t.id, p, 'helm', 'step ' || p, 'succeeded', t.created_at, t.ended_at
FROM tasks t, generate_series(1, 4) p
WHERE t.id > 20000;

ALTER TABLE tasks ALTER COLUMN id RESTART WITH 30000;
ALTER TABLE steps ALTER COLUMN id RESTART WITH 100000;

INSERT INTO step_logs (step_id, seq, level, message)
SELECT s.id, 1, 'INFO', 'line' FROM steps s;

UPDATE tasks SET status = CASE WHEN deployment_id <= 20 THEN 'queued' ELSE 'running' END,
                 ended_at = NULL, heartbeat_at = CASE WHEN deployment_id > 20 THEN now() END
WHERE id BETWEEN 19801 AND 19830;
UPDATE deployments d SET holder_task_id = t.id
FROM tasks t WHERE t.deployment_id = d.id AND t.status = 'running';

INSERT INTO action_tokens (token_hash, deployment_id, task_id, step_id, expires_at, revoked_at)
SELECT sha256(t.id::text::bytea), t.deployment_id, t.id, 4 * t.id, coalesce(t.ended_at, now()), t.ended_at
FROM tasks t WHERE t.id % 4 = 0 AND t.id <= 20000;

INSERT INTO revisions (deployment_id, revision, task_id, driver_version, app_version, parameters, secrets)
SELECT t.deployment_id, row_number() OVER (PARTITION BY t.deployment_id ORDER BY t.id), t.id, '1.0.0', '1.0', '{}', '\x01'
FROM tasks t WHERE t.id % 2 = 0 AND t.id <= 16000;

INSERT INTO webhooks (url, secret, events, created_by)
VALUES ('https://hooks.example.com/a', '\x00', '{succeeded}', 'admin'),
       ('https://hooks.example.com/b', '\x00', '{succeeded}', 'admin');
INSERT INTO webhook_deliveries (webhook_id, deployment_id, task_id, event, body, status, attempts)
SELECT 1 + t.id % 2, t.deployment_id, t.id, 'succeeded', '{}', 'delivered', 1
FROM tasks t WHERE t.id <= 10000;
INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, duration_ms)
SELECT id, 1, 200, 10 FROM webhook_deliveries;

INSERT INTO audit_entries (at, actor_name, actor_via, actor_role, actor_address, action, target_kind, target_name, outcome, reason)
SELECT now() - (100000 - i) * interval '5 minutes', 'user-' || i % 20, 'session', 'operator', '10.0.0.1',
       CASE WHEN i % 3 = 0 THEN 'deployment.upgrade' ELSE 'signin' END,
       CASE WHEN i % 3 = 0 THEN 'deployment' ELSE 'user' END, 'app-' || i % 200, 'allowed', ''
FROM generate_series(1, 100000) i;

ANALYZE;
