-- name: InsertSettingIfAbsent :exec
INSERT INTO settings (name, value) VALUES (@name, @value)
ON CONFLICT (name) DO NOTHING;

-- name: GetSetting :one
SELECT value FROM settings WHERE name = @name;

-- name: ReplaceSetting :execrows
-- ReplaceSetting sets a setting to new, unless it no longer holds old.
UPDATE settings SET value = @new WHERE name = @name AND value = @old;

-- name: UpsertSetting :exec
INSERT INTO settings (name, value) VALUES (@name, @value)
ON CONFLICT (name) DO UPDATE SET value = excluded.value;
