-- name: CreateAPIToken :one
INSERT INTO api_tokens (token_hash, user_id, name, created_at, expires_at)
VALUES (@token_hash, @user_id, @name, @now, sqlc.narg('expires_at'))
RETURNING *;

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
-- ListUserAPITokens returns a user's tokens, the newest first.
SELECT * FROM api_tokens WHERE user_id = @user_id ORDER BY id DESC;

-- name: GetAPIToken :one
SELECT * FROM api_tokens WHERE id = @id;

-- name: DeleteAPIToken :execrows
DELETE FROM api_tokens WHERE id = @id;

-- name: DeleteUserAPITokens :execrows
DELETE FROM api_tokens WHERE user_id = @user_id;
