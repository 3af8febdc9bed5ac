-- OpenID Connect sign-in: a user may come from an identity provider, named
-- by the provider's issuer and the user's subject there (unique), and then
-- has no local password; the ID token a session was signed in with, kept
-- for the provider's end-session endpoint (id_token_hint); and the sign-ins
-- under way, between the redirect to the provider and its answer: each
-- state is used once (deleted as it is read) and bound to the browser that
-- started it by the hash of that browser's CSRF token.

-- +goose Up
ALTER TABLE users
    ALTER COLUMN password_hash DROP NOT NULL,
    ADD COLUMN oidc_issuer  text,
    ADD COLUMN oidc_subject text,
    ADD CONSTRAINT users_oidc_identity_key UNIQUE (oidc_issuer, oidc_subject),
    ADD CONSTRAINT users_identity_check CHECK (
        (oidc_issuer IS NULL) = (oidc_subject IS NULL)
        AND (password_hash IS NOT NULL) <> (oidc_subject IS NOT NULL));

ALTER TABLE sessions ADD COLUMN id_token text;

CREATE TABLE oidc_logins (
    state_hash     bytea       PRIMARY KEY,
    browser_hash   bytea       NOT NULL,
    nonce          text        NOT NULL,
    code_verifier  text        NOT NULL,
    next           text        NOT NULL,
    expires_at     timestamptz NOT NULL
);
CREATE INDEX oidc_logins_expires_idx ON oidc_logins (expires_at);

-- +goose Down
DROP TABLE oidc_logins;
ALTER TABLE sessions DROP COLUMN id_token;
DELETE FROM users WHERE oidc_subject IS NOT NULL;
ALTER TABLE users
    DROP CONSTRAINT users_identity_check,
    DROP CONSTRAINT users_oidc_identity_key,
    DROP COLUMN oidc_subject,
    DROP COLUMN oidc_issuer,
    ALTER COLUMN password_hash SET NOT NULL;
