-- name: GetNamespacePolicy :one
SELECT * FROM namespace_policy;

-- name: SetNamespacePolicy :one
UPDATE namespace_policy
SET allowed = @allowed, create_namespaces = @create_namespaces, updated_by = @updated_by, updated_at = now()
RETURNING *;
