-- Reconciling and accepting drift (docs/operations.md, Drift).
--
-- A reconcile is a task of its own kind: it re-applies the release as it is.
--
-- An acceptance records, per object of a deployment's release that differed
-- from its manifest, the fingerprint of that difference (package drift:
-- a hash of the fields that differ, with the manifest's and the live
-- values; never a Secret's value) when an operator accepted it. While the
-- object differs by exactly that, it is no drift; once it changes again, it
-- is. A reconcile deletes the deployment's acceptances.

-- +goose Up
ALTER TABLE tasks DROP CONSTRAINT tasks_kind_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_kind_check
    CHECK (kind IN ('install', 'upgrade', 'rollback', 'stop', 'start', 'delete', 'action', 'reconcile'));

CREATE TABLE drift_acceptances (
    deployment_id bigint      NOT NULL REFERENCES deployments (id),
    api_version   text        NOT NULL,
    kind          text        NOT NULL,
    -- namespace is the one the manifest gives, '' when it gives none.
    namespace     text        NOT NULL,
    name          text        NOT NULL,
    fingerprint   text        NOT NULL CHECK (fingerprint <> ''),
    accepted_by   text        NOT NULL,
    accepted_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (deployment_id, api_version, kind, namespace, name)
);

-- +goose Down
DROP TABLE drift_acceptances;
ALTER TABLE tasks DROP CONSTRAINT tasks_kind_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_kind_check
    CHECK (kind IN ('install', 'upgrade', 'rollback', 'stop', 'start', 'delete', 'action'));
