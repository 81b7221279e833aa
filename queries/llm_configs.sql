-- Every query filters by tenant_id.

-- name: GetLLMConfig :one
SELECT * FROM llm_configs WHERE tenant_id = @tenant_id AND usage_type = @usage_type;

-- name: InsertLLMConfig :one
INSERT INTO llm_configs (tenant_id, usage_type, provider, base_url, api_key, model, deployment, api_version,
                         temperature, max_tokens, timeout_ms, retries, set_by_platform)
VALUES (@tenant_id, @usage_type, @provider, @base_url, @api_key, @model, @deployment, @api_version,
        @temperature, @max_tokens, @timeout_ms, @retries, @set_by_platform)
ON CONFLICT (tenant_id, usage_type) DO NOTHING
RETURNING *;

-- name: UpdateLLMConfig :one
UPDATE llm_configs
SET provider = @provider, base_url = @base_url, api_key = @api_key, model = @model, deployment = @deployment,
    api_version = @api_version, temperature = @temperature, max_tokens = @max_tokens, timeout_ms = @timeout_ms,
    retries = @retries, set_by_platform = @set_by_platform, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND usage_type = @usage_type AND version = @version
RETURNING *;

-- The stored API keys of every tenant, for sealing them at start (the one
-- query across tenants here: the service's own maintenance).
-- name: ListLLMConfigKeys :many
SELECT tenant_id, usage_type, api_key FROM llm_configs WHERE api_key <> '' ORDER BY tenant_id, usage_type;

-- name: ResealLLMConfigKey :execrows
UPDATE llm_configs SET api_key = @sealed
WHERE tenant_id = @tenant_id AND usage_type = @usage_type AND api_key = @stored;
