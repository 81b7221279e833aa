-- Per-tenant overrides of the service's request rate limits (requests per
-- minute, per API key and per tenant); NULL is the service default.

-- +goose Up
ALTER TABLE tenants
    ADD COLUMN rate_limit_per_key integer CHECK (rate_limit_per_key > 0),
    ADD COLUMN rate_limit_per_tenant integer CHECK (rate_limit_per_tenant > 0);

-- +goose Down
ALTER TABLE tenants DROP COLUMN rate_limit_per_key, DROP COLUMN rate_limit_per_tenant;
