-- name: RecordSigninFailure :exec
INSERT INTO signin_failures (username, address) VALUES (@username, @address);

-- name: SigninFailuresByUsername :one
-- SigninFailuresByUsername counts a user's failures since a time and the oldest of them.
SELECT count(*)::bigint AS failures, coalesce(min(failed_at), now())::timestamptz AS oldest
FROM signin_failures
WHERE username = @username AND failed_at > @since;

-- name: SigninFailuresByAddress :one
-- SigninFailuresByAddress counts an address's failures since a time and the oldest of them.
SELECT count(*)::bigint AS failures, coalesce(min(failed_at), now())::timestamptz AS oldest
FROM signin_failures
WHERE address = @address AND failed_at > @since;

-- name: ClearSigninFailures :exec
DELETE FROM signin_failures WHERE username = @username;

-- name: DeleteSigninFailuresBefore :exec
DELETE FROM signin_failures WHERE failed_at < @before;
