-- name: InsertTenantIfAbsent :exec
INSERT INTO tenants (id) VALUES (@id) ON CONFLICT (id) DO NOTHING;

-- name: InsertTenantSettingsIfAbsent :exec
INSERT INTO tenant_settings (tenant_id) VALUES (@tenant_id) ON CONFLICT (tenant_id) DO NOTHING;

-- name: GetTenant :one
SELECT * FROM tenants WHERE id = @id;

-- name: ListTenants :many
SELECT * FROM tenants
WHERE (sqlc.narg(only_id)::text IS NULL OR id = sqlc.narg(only_id))
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND id > @after
ORDER BY id
LIMIT @lim;

-- name: UpdateTenant :one
-- quotas holds the quota overrides in the order of domain.AllQuotas, 0 for
-- the platform default (NULL).
UPDATE tenants
SET name = coalesce(sqlc.narg(name), name),
    status = coalesce(sqlc.narg(status), status),
    rate_limit_per_key = CASE WHEN @set_rate_limits::boolean THEN sqlc.narg(rate_limit_per_key)::integer ELSE rate_limit_per_key END,
    rate_limit_per_tenant = CASE WHEN @set_rate_limits::boolean THEN sqlc.narg(rate_limit_per_tenant)::integer ELSE rate_limit_per_tenant END,
    quota_knowledge_bases = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[1], 0) ELSE quota_knowledge_bases END,
    quota_documents = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[2], 0) ELSE quota_documents END,
    quota_chunks = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[3], 0) ELSE quota_chunks END,
    quota_stored_bytes = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[4], 0) ELSE quota_stored_bytes END,
    quota_index_memory_bytes = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[5], 0) ELSE quota_index_memory_bytes END,
    quota_intent_rules = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[6], 0) ELSE quota_intent_rules END,
    quota_script_flows = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[7], 0) ELSE quota_script_flows END,
    quota_prompt_templates = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[8], 0) ELSE quota_prompt_templates END,
    quota_decomposition_templates = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[9], 0) ELSE quota_decomposition_templates END,
    quota_streams_per_key = CASE WHEN @set_quotas::boolean THEN nullif((@quotas::bigint[])[10], 0) ELSE quota_streams_per_key END,
    version = version + 1,
    updated_at = now()
WHERE id = @id AND (@version::integer = 0 OR version = @version)
RETURNING *;
