-- Catalogue sources (issue 36, "Catalogues"): an OCI repository of driver
-- bundles that Styrmin syncs (every SyncEvery, and when an admin asks), with a
-- signature policy: unsigned versions allowed, or each version signed (cosign)
-- by one of the source's public keys. Every tag read is recorded once, as
-- imported (its driver version then names the source and the key that signed
-- it) or refused with the reason; a refused version never enters the
-- catalogue, so it cannot be deployed. A source is claimed by one process at a
-- time: claimed_until (FOR UPDATE SKIP LOCKED at the claim).

-- +goose Up
CREATE TABLE catalogue_sources (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$'),
    url           text NOT NULL,
    signed_only   boolean NOT NULL,
    -- keys: [{"name": ..., "pem": ...}], the public keys a signed version needs one of.
    keys          jsonb NOT NULL DEFAULT '[]'::jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    created_by    text NOT NULL,
    next_sync_at  timestamptz NOT NULL DEFAULT now(),
    claimed_until timestamptz,
    synced_at     timestamptz,
    sync_error    text NOT NULL DEFAULT '',
    CONSTRAINT catalogue_sources_keys_when_signed CHECK (NOT signed_only OR jsonb_array_length(keys) > 0)
);
CREATE INDEX catalogue_sources_due_idx ON catalogue_sources (next_sync_at);

CREATE TABLE catalogue_source_versions (
    source_id  bigint NOT NULL REFERENCES catalogue_sources ON DELETE CASCADE,
    tag        text NOT NULL,
    digest     text NOT NULL DEFAULT '',
    status     text NOT NULL CHECK (status IN ('imported', 'refused')),
    reason     text NOT NULL DEFAULT '',
    signed_by  text NOT NULL DEFAULT '',
    checked_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (source_id, tag)
);

-- The source a version came from and the key that signed it (empty: unsigned,
-- or not from a source). The source's name stays when the source is deleted.
ALTER TABLE driver_versions ADD COLUMN source text NOT NULL DEFAULT '',
    ADD COLUMN signed_by text NOT NULL DEFAULT '';

ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_via_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_via_check
    CHECK (actor_via IN ('session', 'api-token', 'action-token', 'command-line', 'schedule', 'source', 'none'));

-- +goose Down
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_via_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_via_check
    CHECK (actor_via IN ('session', 'api-token', 'action-token', 'command-line', 'schedule', 'none')) NOT VALID;
ALTER TABLE driver_versions DROP COLUMN signed_by, DROP COLUMN source;
DROP TABLE catalogue_source_versions;
DROP TABLE catalogue_sources;
