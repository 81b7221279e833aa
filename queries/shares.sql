-- Share links and their bound devices. Every query filters by tenant_id
-- except ShareLinkByTokenHash: the public page knows only the link's token,
-- and the link it finds names the tenant every later query filters by.

-- name: CreateShareLink :one
INSERT INTO share_links (id, tenant_id, session_id, token_hash, max_devices, created_by, created_at, expires_at)
VALUES (@id, @tenant_id, @session_id, @token_hash, @max_devices, @created_by, @created_at, @expires_at)
RETURNING *;

-- name: GetShareLink :one
SELECT * FROM share_links WHERE tenant_id = @tenant_id AND id = @id;

-- name: LockShareLink :one
-- The link, locked until the transaction ends: device bindings of one link
-- take turns, so no two of them pass the device limit together.
SELECT * FROM share_links WHERE tenant_id = @tenant_id AND id = @id FOR UPDATE;

-- name: ListShareLinks :many
-- Newest first; active (when given) keeps the links open at @now (true) or
-- the closed ones (false).
SELECT * FROM share_links
WHERE tenant_id = @tenant_id
  AND (sqlc.narg(session_id)::text IS NULL OR session_id = sqlc.narg(session_id))
  AND (sqlc.narg(active)::boolean IS NULL
       OR (revoked_at IS NULL AND expires_at > @now::timestamptz) = sqlc.narg(active)::boolean)
  AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: RevokeShareLink :one
-- Keeps the first revocation's time.
UPDATE share_links SET revoked_at = coalesce(revoked_at, @revoked_at)
WHERE tenant_id = @tenant_id AND id = @id
RETURNING *;

-- name: ShareLinkByTokenHash :one
-- The public page's lookup, across tenants, with the tenant's status.
SELECT s.*, t.status AS tenant_status
FROM share_links s JOIN tenants t ON t.id = s.tenant_id
WHERE s.token_hash = @token_hash;

-- name: ListShareDevices :many
-- The devices of some links of a tenant, oldest binding first.
SELECT * FROM share_devices
WHERE tenant_id = @tenant_id AND share_id = ANY(@share_ids::text[])
ORDER BY bound_at, device_id;

-- name: InsertShareDevice :one
INSERT INTO share_devices (tenant_id, share_id, device_id, token_hash, bound_at)
VALUES (@tenant_id, @share_id, @device_id, @token_hash, @bound_at)
RETURNING *;

-- name: ShareDeviceByTokenHash :one
SELECT * FROM share_devices
WHERE tenant_id = @tenant_id AND share_id = @share_id AND token_hash = @token_hash;
