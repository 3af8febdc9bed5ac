-- +goose Up
-- One row per imported driver version. A version is immutable: the digest of
-- its bundle's content is recorded and a re-import with another digest is refused.
CREATE TABLE driver_versions (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name              text NOT NULL,
    version           text NOT NULL,
    title             text NOT NULL,
    summary           text NOT NULL DEFAULT '',
    labels            jsonb NOT NULL DEFAULT '{}'::jsonb,
    spec              jsonb NOT NULL,
    icon              bytea,
    icon_content_type text,
    readme            text NOT NULL DEFAULT '',
    digest            text NOT NULL,
    bundle            bytea NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    created_by        text,
    CONSTRAINT driver_versions_name_version_key UNIQUE (name, version),
    CONSTRAINT driver_versions_icon_pair CHECK ((icon IS NULL) = (icon_content_type IS NULL))
);

-- +goose Down
DROP TABLE driver_versions;
