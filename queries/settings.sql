-- name: InsertSettingIfAbsent :exec
INSERT INTO settings (name, value) VALUES (@name, @value)
ON CONFLICT (name) DO NOTHING;

-- name: GetSetting :one
SELECT value FROM settings WHERE name = @name;
