-- name: CreateAPIToken :one
INSERT INTO api_tokens (token_hash, user_id, name, created_at, expires_at, team_id)
VALUES (@token_hash, @user_id, @name, @now, sqlc.narg('expires_at'), sqlc.narg('team_id'))
RETURNING *;

-- name: GetTokenTeam :one
-- GetTokenTeam returns the team of that name when the user is its member:
-- the one team a new token of theirs may be narrowed to.
SELECT t.id, t.name FROM teams t JOIN team_members m ON m.team_id = t.id
WHERE t.name = @name AND m.user_id = @user_id;

-- name: GetLiveAPIToken :one
-- GetLiveAPIToken returns the token with token_hash and its user, unless the
-- token has expired or its user is disabled.
SELECT sqlc.embed(api_tokens), sqlc.embed(users)
FROM api_tokens JOIN users ON users.id = api_tokens.user_id
WHERE api_tokens.token_hash = @token_hash
  AND (api_tokens.expires_at IS NULL OR api_tokens.expires_at > @now::timestamptz)
  AND NOT users.disabled;

-- name: TouchAPIToken :exec
-- TouchAPIToken records a use at now, unless one was recorded after since.
UPDATE api_tokens SET last_used_at = @now::timestamptz
WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @since::timestamptz);

-- name: ListUserAPITokens :many
-- ListUserAPITokens returns a user's tokens, the newest first, with the name
-- of the team each is narrowed to ('' for none).
SELECT sqlc.embed(api_tokens), coalesce(teams.name, '')::text AS team
FROM api_tokens LEFT JOIN teams ON teams.id = api_tokens.team_id
WHERE api_tokens.user_id = @user_id ORDER BY api_tokens.id DESC;

-- name: GetAPIToken :one
SELECT * FROM api_tokens WHERE id = @id;

-- name: DeleteAPIToken :execrows
DELETE FROM api_tokens WHERE id = @id;

-- name: DeleteUserAPITokens :execrows
DELETE FROM api_tokens WHERE user_id = @user_id;
