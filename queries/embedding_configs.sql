-- Every query filters by tenant_id.

-- name: GetEmbeddingConfig :one
SELECT * FROM embedding_configs WHERE tenant_id = @tenant_id;

-- name: InsertEmbeddingConfig :one
INSERT INTO embedding_configs (tenant_id, provider, base_url, api_key, model, timeout_ms, retries, batch_size, set_by_platform)
VALUES (@tenant_id, @provider, @base_url, @api_key, @model, @timeout_ms, @retries, @batch_size, @set_by_platform)
ON CONFLICT (tenant_id) DO NOTHING
RETURNING *;

-- name: UpdateEmbeddingConfig :one
UPDATE embedding_configs
SET provider = @provider, base_url = @base_url, api_key = @api_key, model = @model, timeout_ms = @timeout_ms,
    retries = @retries, batch_size = @batch_size, set_by_platform = @set_by_platform, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND version = @version
RETURNING *;

-- The stored API keys of every tenant, for sealing them at start.
-- name: ListEmbeddingConfigKeys :many
SELECT tenant_id, api_key FROM embedding_configs WHERE api_key <> '' ORDER BY tenant_id;

-- name: ResealEmbeddingConfigKey :execrows
UPDATE embedding_configs SET api_key = @sealed WHERE tenant_id = @tenant_id AND api_key = @stored;

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
