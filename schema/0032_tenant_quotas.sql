-- Per-tenant overrides of the platform's quotas (ASSISTANT_QUOTA_*); NULL
-- is the platform default. And what each document holds in chunks, kept
-- on its row when its chunks are replaced, so that a tenant's chunks and
-- their text are summed over its documents, not counted over its chunks.

-- +goose Up
ALTER TABLE tenants
    ADD COLUMN quota_knowledge_bases bigint CHECK (quota_knowledge_bases > 0),
    ADD COLUMN quota_documents bigint CHECK (quota_documents > 0),
    ADD COLUMN quota_chunks bigint CHECK (quota_chunks > 0),
    ADD COLUMN quota_stored_bytes bigint CHECK (quota_stored_bytes > 0),
    ADD COLUMN quota_index_memory_bytes bigint CHECK (quota_index_memory_bytes > 0),
    ADD COLUMN quota_intent_rules bigint CHECK (quota_intent_rules > 0),
    ADD COLUMN quota_script_flows bigint CHECK (quota_script_flows > 0),
    ADD COLUMN quota_prompt_templates bigint CHECK (quota_prompt_templates > 0),
    ADD COLUMN quota_decomposition_templates bigint CHECK (quota_decomposition_templates > 0),
    ADD COLUMN quota_streams_per_key bigint CHECK (quota_streams_per_key > 0);

-- stored_chunks counts every chunk of the document (generated questions
-- too); chunk_text_bytes is their search text (heading path and text).
ALTER TABLE documents
    ADD COLUMN stored_chunks integer NOT NULL DEFAULT 0,
    ADD COLUMN chunk_text_bytes bigint NOT NULL DEFAULT 0;

UPDATE documents d
SET stored_chunks = c.n, chunk_text_bytes = c.text_bytes
FROM (SELECT tenant_id, document_id, count(*) AS n,
             sum(octet_length(text) + CASE WHEN cardinality(heading_path) = 0 THEN 0
                 ELSE octet_length(array_to_string(heading_path, ' › ')) + 1 END) AS text_bytes
      FROM chunks GROUP BY tenant_id, document_id) c
WHERE d.tenant_id = c.tenant_id AND d.id = c.document_id;

-- +goose Down
ALTER TABLE documents DROP COLUMN stored_chunks, DROP COLUMN chunk_text_bytes;
ALTER TABLE tenants
    DROP COLUMN quota_knowledge_bases, DROP COLUMN quota_documents, DROP COLUMN quota_chunks,
    DROP COLUMN quota_stored_bytes, DROP COLUMN quota_index_memory_bytes, DROP COLUMN quota_intent_rules,
    DROP COLUMN quota_script_flows, DROP COLUMN quota_prompt_templates,
    DROP COLUMN quota_decomposition_templates, DROP COLUMN quota_streams_per_key;
