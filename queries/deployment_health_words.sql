-- name: AddHealthWord :execrows
-- Records a deployment's first known health word; 0 rows when it has one.
INSERT INTO deployment_health_words (deployment_id, word) VALUES (@deployment_id, @word)
ON CONFLICT (deployment_id) DO NOTHING;

-- name: LockHealthWord :one
-- A deployment's last known health word, locked until the transaction ends:
-- the processes that read its health see a change one after the other.
SELECT * FROM deployment_health_words WHERE deployment_id = @deployment_id FOR UPDATE;

-- name: SetHealthWord :exec
UPDATE deployment_health_words SET word = @word, degraded_at = sqlc.narg(degraded_at), changed_at = now()
WHERE deployment_id = @deployment_id;
