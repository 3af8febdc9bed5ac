-- name: CreateOIDCLogin :exec
INSERT INTO oidc_logins (state_hash, browser_hash, address, nonce, code_verifier, next, expires_at)
VALUES (@state_hash, @browser_hash, @address, @nonce, @code_verifier, @next, @expires_at);

-- name: CountOIDCLogins :one
-- CountOIDCLogins counts the sign-ins under way (not expired at now) that
-- address started, and all of them.
SELECT count(*) FILTER (WHERE address = @address) AS from_address, count(*) AS total
FROM oidc_logins WHERE expires_at > @now;

-- name: TakeOIDCLogin :one
-- TakeOIDCLogin deletes the sign-in under way with state_hash and returns it:
-- a state is good for one answer of the provider, however many arrive.
DELETE FROM oidc_logins WHERE state_hash = @state_hash RETURNING *;

-- name: DeleteExpiredOIDCLogins :exec
DELETE FROM oidc_logins WHERE expires_at <= @now;
