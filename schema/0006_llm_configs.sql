-- Per-tenant language-model configuration, one per usage type.

-- +goose Up
CREATE TABLE llm_configs (
    tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    usage_type  text NOT NULL CHECK (usage_type IN ('chat', 'kb_processing')),
    provider    text NOT NULL CHECK (provider IN ('offline', 'openai_compatible', 'ollama', 'azure_openai')),
    base_url    text NOT NULL DEFAULT '',
    -- Never returned by the API nor logged.
    api_key     text NOT NULL DEFAULT '',
    model       text NOT NULL DEFAULT '',
    deployment  text NOT NULL DEFAULT '',
    api_version text NOT NULL DEFAULT '',
    temperature double precision NOT NULL,
    max_tokens  integer NOT NULL,
    timeout_ms  integer NOT NULL,
    retries     integer NOT NULL,
    version     integer NOT NULL DEFAULT 1,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, usage_type)
);

-- +goose Down
DROP TABLE llm_configs;
