-- name: LockSigninAddress :exec
-- LockSigninAddress serialises, until the end of the transaction, the sign-in
-- attempts from one address, so that counting and recording one is atomic.
SELECT pg_advisory_xact_lock(hashtextextended('styrmin signin ' || @address::text, 0));

-- name: CountSigninFailures :one
-- CountSigninFailures counts an address's failures since a time, in all and for
-- one username, with the oldest of each.
SELECT count(*)::bigint AS by_address,
       coalesce(min(failed_at), now())::timestamptz AS address_oldest,
       count(*) FILTER (WHERE username = @username)::bigint AS by_pair,
       coalesce(min(failed_at) FILTER (WHERE username = @username), now())::timestamptz AS pair_oldest
FROM signin_failures
WHERE address = @address AND failed_at > @since;

-- name: RecordSigninFailure :one
INSERT INTO signin_failures (username, address, failed_at) VALUES (@username, @address, @failed_at)
RETURNING id;

-- name: DeleteSigninFailure :exec
DELETE FROM signin_failures WHERE id = @id;

-- name: ClearSigninFailures :exec
-- ClearSigninFailures forgets a username's failures from one address.
DELETE FROM signin_failures WHERE username = @username AND address = @address;

-- name: DeleteSigninFailuresBefore :exec
DELETE FROM signin_failures WHERE failed_at < @before;
