-- Catalogue sources of a second kind (issue 36, "Catalogues"): besides an
-- OCI repository of driver bundles (kind 'oci', url oci://HOST/REPOSITORY),
-- an https index (kind 'index', url https://HOST/PATH/index.yaml) listing
-- bundle archives with their sha256 digests, each signed (when it is) by a
-- cosign signature of the archive's bytes beside it (<archive URL>.sig). An
-- index source records each entry it read under the tag NAME@VERSION.

-- +goose Up
ALTER TABLE catalogue_sources ADD COLUMN kind text NOT NULL DEFAULT 'oci' CHECK (kind IN ('oci', 'index'));

-- +goose Down
ALTER TABLE catalogue_sources DROP COLUMN kind;
