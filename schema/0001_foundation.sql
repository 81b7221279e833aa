-- Foundation: tenants, their settings, API keys, knowledge bases, and the
-- documents table that knowledge bases count (filled by ingestion).

-- +goose Up
CREATE TABLE tenants (
    id         text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{1,62}[a-z0-9]$'),
    name       text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
    status     text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    version    integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tenant_settings (
    tenant_id                     text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    transfer_confidence_threshold double precision NOT NULL DEFAULT 0.5,
    min_hits                      integer NOT NULL DEFAULT 1,
    min_top_score                 double precision NOT NULL DEFAULT 0.3,
    min_evidence_tokens           integer NOT NULL DEFAULT 20,
    retrieval_score_threshold     double precision NOT NULL DEFAULT 0.3,
    -- NULL: the service's FRONTEND_BASE_URL.
    frontend_base_url             text,
    kb_vector_log_enabled         boolean NOT NULL DEFAULT false,
    kb_vector_log_path            text NOT NULL DEFAULT 'kb-vector.log',
    version                       integer NOT NULL DEFAULT 1,
    updated_at                    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id           text PRIMARY KEY,
    -- NULL: a platform key.
    tenant_id    text REFERENCES tenants (id) ON DELETE CASCADE,
    name         text NOT NULL,
    prefix       text NOT NULL,
    secret_hash  bytea NOT NULL UNIQUE,
    scopes       text[] NOT NULL,
    is_default   boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    last_used_at timestamptz,
    revoked_at   timestamptz
);

CREATE INDEX api_keys_tenant_id_idx ON api_keys (tenant_id, id DESC);

CREATE TABLE knowledge_bases (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    version     integer NOT NULL DEFAULT 1,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, name),
    -- Target of the documents' tenant-safe foreign key.
    UNIQUE (tenant_id, id)
);

CREATE TABLE documents (
    id         text PRIMARY KEY,
    tenant_id  text NOT NULL,
    kb_id      text NOT NULL,
    name       text NOT NULL,
    status     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- A document can only ever belong to a knowledge base of its own tenant.
    FOREIGN KEY (tenant_id, kb_id) REFERENCES knowledge_bases (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX documents_kb_idx ON documents (tenant_id, kb_id);

-- +goose Down
DROP TABLE documents;
DROP TABLE knowledge_bases;
DROP TABLE api_keys;
DROP TABLE tenant_settings;
DROP TABLE tenants;
