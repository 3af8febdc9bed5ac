-- name: InsertSettingIfAbsent :exec
INSERT INTO settings (name, value) VALUES (@name, @value)
ON CONFLICT (name) DO NOTHING;

-- name: GetSetting :one
SELECT value FROM settings WHERE name = @name;

-- name: UpsertSetting :exec
INSERT INTO settings (name, value) VALUES (@name, @value)
ON CONFLICT (name) DO UPDATE SET value = excluded.value;
