-- Ingestion: documents with their files, chunks, vectors and index jobs.

-- +goose Up
ALTER TABLE documents
    ADD COLUMN kind            text NOT NULL DEFAULT 'text' CHECK (kind IN ('pdf', 'docx', 'xlsx', 'text', 'png', 'jpeg', 'webp')),
    ADD COLUMN size_bytes      bigint NOT NULL DEFAULT 0,
    ADD COLUMN sha256          bytea,
    ADD COLUMN metadata        jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN chunk_count     integer NOT NULL DEFAULT 0,
    ADD COLUMN embedding_model text,
    ADD COLUMN updated_at      timestamptz NOT NULL DEFAULT now(),
    ADD CONSTRAINT documents_status_check CHECK (status IN ('queued', 'indexing', 'ready', 'failed', 'stale')),
    -- Target of tenant-safe foreign keys from chunks and jobs.
    ADD CONSTRAINT documents_tenant_id_id_key UNIQUE (tenant_id, id);

CREATE INDEX documents_tenant_idx ON documents (tenant_id, id DESC);

-- The original file, kept so a document can be re-indexed and nothing a
-- user uploaded is lost if indexing fails.
CREATE TABLE document_files (
    document_id text PRIMARY KEY,
    tenant_id   text NOT NULL,
    content     bytea NOT NULL,
    FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE chunks (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL,
    kb_id       text NOT NULL,
    document_id text NOT NULL,
    idx         integer NOT NULL,
    text        text NOT NULL,
    tokens      integer NOT NULL,
    page        integer,
    sheet       text,
    heading     text,
    line_start  integer,
    line_end    integer,
    metadata    jsonb NOT NULL DEFAULT '{}',
    FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
);

CREATE UNIQUE INDEX chunks_document_idx ON chunks (tenant_id, document_id, idx);

-- Vectors as little-endian float32 bytes: compact, and COPY-friendly.
CREATE TABLE chunk_vectors (
    chunk_id    text PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
    tenant_id   text NOT NULL,
    kb_id       text NOT NULL,
    document_id text NOT NULL,
    model       text NOT NULL,
    dims        integer NOT NULL,
    vector      bytea NOT NULL,
    metadata    jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX chunk_vectors_tenant_idx ON chunk_vectors (tenant_id);

CREATE TABLE index_jobs (
    id             text PRIMARY KEY,
    tenant_id      text NOT NULL,
    kb_id          text NOT NULL,
    document_id    text NOT NULL,
    state          text NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'parsing', 'chunking', 'embedding', 'indexing', 'succeeded', 'failed')),
    progress_done  integer NOT NULL DEFAULT 0,
    progress_total integer NOT NULL DEFAULT 0,
    attempts       integer NOT NULL DEFAULT 0,
    reason         text,
    detail         text,
    -- The worker holding the job and until when; an expired lease means the
    -- worker died, and another one takes the job over.
    lease_owner    text,
    lease_until    timestamptz,
    run_after      timestamptz NOT NULL DEFAULT now(),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    started_at     timestamptz,
    finished_at    timestamptz,
    FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX index_jobs_tenant_idx ON index_jobs (tenant_id, id DESC);
CREATE INDEX index_jobs_claim_idx ON index_jobs (run_after) WHERE state NOT IN ('succeeded', 'failed');

-- +goose Down
DROP TABLE index_jobs;
DROP TABLE chunk_vectors;
DROP TABLE chunks;
DROP TABLE document_files;
DROP INDEX documents_tenant_idx;
ALTER TABLE documents
    DROP CONSTRAINT documents_tenant_id_id_key,
    DROP CONSTRAINT documents_status_check,
    DROP COLUMN kind, DROP COLUMN size_bytes, DROP COLUMN sha256, DROP COLUMN metadata,
    DROP COLUMN chunk_count, DROP COLUMN embedding_model, DROP COLUMN updated_at;
