-- A single sign-on under way names the address that started it (its IPv6
-- /64 network), so that one address cannot fill the table: Begin counts the
-- unexpired sign-ins of the address, and of everyone, before it adds one.

-- +goose Up
ALTER TABLE oidc_logins ADD COLUMN address text NOT NULL DEFAULT '';
CREATE INDEX oidc_logins_address_idx ON oidc_logins (address, expires_at);

-- +goose Down
ALTER TABLE oidc_logins DROP COLUMN address;
