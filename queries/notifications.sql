-- name: Notify :exec
-- Notify sends a notification on channel (db.Listener's probes; changes are
-- notified by the triggers of migration 00006_notify.sql).
SELECT pg_notify(@channel::text, @payload::text);
