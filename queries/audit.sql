-- name: InsertAuditEntry :one
-- The entry keeps the team of what it is about, read now: for a deployment,
-- that of the live deployment of the name, else of the one deleted last, or
-- that of the task target_task (a request that named a task by its id); for
-- a team, that team; for a webhook (target_webhook, its id), its team (NULL:
-- a global webhook); else none (00041_audit_team.sql).
INSERT INTO audit_entries (actor_user_id, actor_token_id, actor_name, actor_via, actor_role, actor_address,
                           action, target_kind, target_name, outcome, reason, detail, request_id, team_id)
VALUES (sqlc.narg(actor_user_id), sqlc.narg(actor_token_id), @actor_name, @actor_via, @actor_role, @actor_address,
        @action, @target_kind, @target_name, @outcome, @reason, @detail, @request_id,
        CASE @target_kind::text
            WHEN 'deployment' THEN coalesce(
                (SELECT d.team_id FROM deployments d WHERE d.name = @target_name::text
                 ORDER BY d.deleted_at IS NOT NULL, d.id DESC LIMIT 1),
                (SELECT d.team_id FROM tasks t JOIN deployments d ON d.id = t.deployment_id
                 WHERE t.id = sqlc.narg(target_task)::bigint))
            WHEN 'team' THEN (SELECT t.id FROM teams t WHERE t.name = @target_name::text)
            WHEN 'webhook' THEN (SELECT w.team_id FROM webhooks w WHERE w.id = sqlc.narg(target_webhook)::bigint)
        END)
RETURNING id, at;

-- name: ListAuditEntries :many
-- ListAuditEntries returns a page of entries, newest first, below the id
-- before (the largest bigint for the newest). A viewer who is not an admin
-- sees only the entries about deployments and teams, and no addresses; a
-- member's log is ListTeamAuditEntries. The visibility rule lives here. Run
-- it through db.CustomPlans: with its optional filters, the generic plan a
-- prepared statement gets after five runs guesses that one entry matches,
-- and once the log's rows are not in the order of their ids (after a prune,
-- say) it reads and sorts the whole log for a page.
SELECT id, at, actor_user_id, actor_token_id, actor_name, actor_via, actor_role,
       CASE WHEN @admin::boolean THEN actor_address ELSE '' END::text AS actor_address,
       action, target_kind, target_name, outcome, reason, detail, request_id
FROM audit_entries
WHERE (@admin::boolean OR target_kind IN ('deployment', 'team'))
  AND id < @before::bigint
  AND (@actor::text = '' OR actor_name = @actor::text)
  AND (@action::text = '' OR action = @action::text OR action LIKE @action::text || '.%')
  AND (@target_kind::text = '' OR target_kind = @target_kind::text)
  AND (@target_name::text = '' OR target_name = @target_name::text)
  AND (@outcome::text = '' OR outcome = @outcome::text)
  AND (@request_id::text = '' OR request_id = @request_id::text)
  AND (sqlc.narg(since)::timestamptz IS NULL OR at >= sqlc.narg(since)::timestamptz)
  AND (sqlc.narg(until)::timestamptz IS NULL OR at < sqlc.narg(until)::timestamptz)
ORDER BY id DESC
LIMIT @max_rows::int;

-- name: ListTeamAuditEntries :many
-- ListAuditEntries for a member, who is no admin: the entries of the teams
-- in team_ids only (about their deployments and the teams themselves; the
-- visibility rule lives here), with the same filters. It takes the newest
-- page of each team through audit_entries_team_idx, then the newest page of
-- those: bounded by the member's teams and the page, never by the log. Run
-- it through db.CustomPlans, as ListAuditEntries: its generic plan reads and
-- sorts every entry of the team for a page.
SELECT page.id, page.at, page.actor_user_id, page.actor_token_id, page.actor_name, page.actor_via, page.actor_role,
       ''::text AS actor_address,
       page.action, page.target_kind, page.target_name, page.outcome, page.reason, page.detail, page.request_id
FROM unnest(@team_ids::bigint[]) AS team (id)
CROSS JOIN LATERAL (
    SELECT a.* FROM audit_entries a
    WHERE a.team_id = team.id AND a.id < @before::bigint
      AND a.target_kind IN ('deployment', 'team')
      AND (@actor::text = '' OR a.actor_name = @actor::text)
      AND (@action::text = '' OR a.action = @action::text OR a.action LIKE @action::text || '.%')
      AND (@target_kind::text = '' OR a.target_kind = @target_kind::text)
      AND (@target_name::text = '' OR a.target_name = @target_name::text)
      AND (@outcome::text = '' OR a.outcome = @outcome::text)
      AND (@request_id::text = '' OR a.request_id = @request_id::text)
      AND (sqlc.narg(since)::timestamptz IS NULL OR a.at >= sqlc.narg(since)::timestamptz)
      AND (sqlc.narg(until)::timestamptz IS NULL OR a.at < sqlc.narg(until)::timestamptz)
    ORDER BY a.id DESC
    LIMIT @max_rows::int
) page
ORDER BY page.id DESC
LIMIT @max_rows::int;

-- name: PruneAuditEntries :one
-- PruneAuditEntries deletes the entries older than before (the retention).
SELECT audit_prune(@before::timestamptz)::bigint AS deleted;
