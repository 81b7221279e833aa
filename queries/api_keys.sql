-- API keys are not tenant-scoped rows in the usual sense: a NULL tenant_id is
-- a platform key. Tenant-bound callers are restricted by the access package.

-- name: CreateAPIKey :one
INSERT INTO api_keys (id, tenant_id, name, prefix, secret_hash, scopes, is_default, expires_at)
VALUES (@id, sqlc.narg(tenant_id), @name, @prefix, @secret_hash, @scopes, @is_default, sqlc.narg(expires_at))
RETURNING *;

-- name: GetAPIKeyByHash :one
SELECT * FROM api_keys WHERE secret_hash = @secret_hash;

-- name: GetAPIKey :one
SELECT * FROM api_keys WHERE id = @id;

-- name: ListAPIKeys :many
SELECT * FROM api_keys
WHERE (sqlc.narg(tenant_id)::text IS NULL OR tenant_id = sqlc.narg(tenant_id))
  AND (@include_revoked::boolean OR revoked_at IS NULL)
  AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: RevokeAPIKey :one
UPDATE api_keys SET revoked_at = coalesce(revoked_at, @revoked_at)
WHERE id = @id
RETURNING *;

-- name: RotateAPIKey :one
UPDATE api_keys SET secret_hash = @secret_hash, prefix = @prefix
WHERE id = @id AND revoked_at IS NULL
RETURNING *;

-- name: TouchAPIKeys :exec
UPDATE api_keys SET last_used_at = @used_at
WHERE id = ANY(@ids::text[]) AND (last_used_at IS NULL OR last_used_at < @used_at);

-- name: LockDefaultAPIKey :exec
-- Serialises default-key creation across processes for this transaction.
SELECT pg_advisory_xact_lock(7302117);

-- name: CountActivePlatformKeys :one
SELECT count(*) FROM api_keys
WHERE tenant_id IS NULL AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now());
