-- Per-tenant embedding configuration.

-- +goose Up
CREATE TABLE embedding_configs (
    tenant_id  text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    provider   text NOT NULL CHECK (provider IN ('offline', 'openai_compatible', 'ollama')),
    base_url   text NOT NULL DEFAULT '',
    -- Stored as given: the database is the service's trust boundary. It is
    -- never returned by the API nor logged.
    api_key    text NOT NULL DEFAULT '',
    model      text NOT NULL DEFAULT '',
    timeout_ms integer NOT NULL,
    retries    integer NOT NULL,
    batch_size integer NOT NULL,
    version    integer NOT NULL DEFAULT 1,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE embedding_configs;
