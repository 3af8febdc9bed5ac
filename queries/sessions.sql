-- name: CreateSession :one
INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at, user_agent, address)
VALUES (@token_hash, @user_id, @now, @now, @expires_at, @user_agent, @address)
RETURNING id;

-- name: GetLiveSession :one
-- GetLiveSession returns the session with token_hash and its user, unless the
-- session has been idle since before idle_since, has expired, or its user is disabled.
SELECT sqlc.embed(sessions), sqlc.embed(users)
FROM sessions JOIN users ON users.id = sessions.user_id
WHERE sessions.token_hash = @token_hash
  AND sessions.last_seen_at > @idle_since
  AND sessions.expires_at > @now
  AND NOT users.disabled;

-- name: TouchSession :exec
UPDATE sessions SET last_seen_at = @now WHERE id = @id AND last_seen_at < @now;

-- name: ListUserSessions :many
-- ListUserSessions returns a user's live sessions, the most recently used first.
SELECT * FROM sessions
WHERE user_id = @user_id AND last_seen_at > @idle_since AND expires_at > @now
ORDER BY last_seen_at DESC, id DESC;

-- name: DeleteSessionByTokenHash :exec
DELETE FROM sessions WHERE token_hash = @token_hash;

-- name: DeleteUserSession :execrows
-- DeleteUserSession ends one session, only if it belongs to user_id.
DELETE FROM sessions WHERE id = @id AND user_id = @user_id;

-- name: DeleteUserSessions :exec
DELETE FROM sessions WHERE user_id = @user_id;

-- name: DeleteDeadSessions :exec
DELETE FROM sessions WHERE last_seen_at <= @idle_since OR expires_at <= @now;

-- name: SetSessionIDToken :exec
UPDATE sessions SET id_token = @id_token WHERE id = @id;

-- name: GetSessionIDToken :one
SELECT id_token FROM sessions WHERE token_hash = @token_hash;
