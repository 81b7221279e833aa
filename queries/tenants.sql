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
UPDATE tenants
SET name = coalesce(sqlc.narg(name), name),
    status = coalesce(sqlc.narg(status), status),
    rate_limit_per_key = CASE WHEN @set_rate_limits::boolean THEN sqlc.narg(rate_limit_per_key)::integer ELSE rate_limit_per_key END,
    rate_limit_per_tenant = CASE WHEN @set_rate_limits::boolean THEN sqlc.narg(rate_limit_per_tenant)::integer ELSE rate_limit_per_tenant END,
    version = version + 1,
    updated_at = now()
WHERE id = @id AND (@version::integer = 0 OR version = @version)
RETURNING *;
