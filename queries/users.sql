-- name: CreateUser :one
INSERT INTO users (username, password_hash, role)
VALUES (@username, @password_hash, @role)
RETURNING *;

-- name: GetUserByID :one
SELECT * FROM users WHERE id = @id;

-- name: GetUserByUsername :one
SELECT * FROM users WHERE username = @username;

-- name: ListUsers :many
SELECT * FROM users ORDER BY username;

-- name: CountUsers :one
SELECT count(*) FROM users;

-- name: CountActiveAdmins :one
SELECT count(*) FROM users WHERE role = 'admin' AND NOT disabled;

-- name: SetUserRole :one
UPDATE users
SET role = @role, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: SetUserDisabled :one
UPDATE users
SET disabled = @disabled, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: SetUserPassword :one
UPDATE users
SET password_hash = @password_hash, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: LockUsers :exec
-- LockUsers serialises changes that must keep at least one active admin.
LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE;

-- name: GetUserByIdentity :one
SELECT * FROM users WHERE oidc_issuer = @issuer AND oidc_subject = @subject;

-- name: CreateIdentityUser :one
-- CreateIdentityUser adds a user of an identity provider, who has no password.
INSERT INTO users (username, role, oidc_issuer, oidc_subject)
VALUES (@username, @role, @issuer, @subject)
RETURNING *;
