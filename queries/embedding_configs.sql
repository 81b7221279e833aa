-- Every query filters by tenant_id.

-- name: GetEmbeddingConfig :one
SELECT * FROM embedding_configs WHERE tenant_id = @tenant_id;

-- name: InsertEmbeddingConfig :one
INSERT INTO embedding_configs (tenant_id, provider, base_url, api_key, model, timeout_ms, retries, batch_size)
VALUES (@tenant_id, @provider, @base_url, @api_key, @model, @timeout_ms, @retries, @batch_size)
ON CONFLICT (tenant_id) DO NOTHING
RETURNING *;

-- name: UpdateEmbeddingConfig :one
UPDATE embedding_configs
SET provider = @provider, base_url = @base_url, api_key = @api_key, model = @model, timeout_ms = @timeout_ms,
    retries = @retries, batch_size = @batch_size, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND version = @version
RETURNING *;

-- name: MarkDocumentsStale :one
WITH stale AS (
    UPDATE documents SET status = 'stale', updated_at = now()
    WHERE tenant_id = @tenant_id AND status = 'ready' AND embedding_model IS DISTINCT FROM @model_id::text
    RETURNING 1
), fresh AS (
    UPDATE documents SET status = 'ready', updated_at = now()
    WHERE tenant_id = @tenant_id AND status = 'stale' AND embedding_model = @model_id::text
    RETURNING 1
)
SELECT (SELECT count(*) FROM stale)::integer + (SELECT count(*) FROM documents d
    WHERE d.tenant_id = @tenant_id AND d.status = 'stale' AND d.embedding_model IS DISTINCT FROM @model_id::text)::integer AS stale;
