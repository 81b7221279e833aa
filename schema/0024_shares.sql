-- Share links: a session's dialogue page opened, without an API key, to at
-- most max_devices devices until the link expires or is revoked. Link and
-- device tokens are stored only as SHA-256 hashes.

-- +goose Up
CREATE TABLE share_links (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    session_id  text NOT NULL,
    token_hash  bytea NOT NULL,
    max_devices integer NOT NULL CHECK (max_devices BETWEEN 1 AND 10),
    -- The API key that made the link (audit only).
    created_by  text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    revoked_at  timestamptz,
    CONSTRAINT share_links_tenant_id_id_key UNIQUE (tenant_id, id),
    FOREIGN KEY (tenant_id, session_id) REFERENCES chat_sessions (tenant_id, id) ON DELETE CASCADE
);

-- The public page finds its link by the token's hash, in any tenant.
CREATE UNIQUE INDEX share_links_token_hash_idx ON share_links (token_hash);
CREATE INDEX share_links_tenant_idx ON share_links (tenant_id, id DESC);
CREATE INDEX share_links_session_idx ON share_links (tenant_id, session_id, id DESC);

CREATE TABLE share_devices (
    tenant_id  text NOT NULL,
    share_id   text NOT NULL,
    -- The client's own id of the device.
    device_id  text NOT NULL,
    token_hash bytea NOT NULL,
    bound_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, share_id, device_id),
    FOREIGN KEY (tenant_id, share_id) REFERENCES share_links (tenant_id, id) ON DELETE CASCADE
);

CREATE UNIQUE INDEX share_devices_token_hash_idx ON share_devices (token_hash);

-- +goose Down
DROP TABLE share_devices;
DROP TABLE share_links;
