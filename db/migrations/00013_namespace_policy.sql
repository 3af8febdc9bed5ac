-- The namespace policy admins set: the namespaces operators may deploy into
-- (glob patterns) and whether Styrmin may create a namespace that does not
-- exist. One row. Reserved namespaces (kube-*, default, Styrmin's own) are
-- refused unless a pattern names them exactly; the application enforces that.

-- +goose Up
CREATE TABLE namespace_policy (
    id                boolean     PRIMARY KEY DEFAULT true CHECK (id),
    allowed           text[]      NOT NULL,
    create_namespaces boolean     NOT NULL,
    updated_by        text        NOT NULL,
    updated_at        timestamptz NOT NULL DEFAULT now()
);
INSERT INTO namespace_policy (allowed, create_namespaces, updated_by) VALUES ('{*}', true, '');

-- +goose Down
DROP TABLE namespace_policy;
