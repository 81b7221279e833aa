-- Every query filters by tenant_id.

-- name: CreateMetadataField :one
INSERT INTO metadata_fields (id, tenant_id, key, label, type, required, enum_values, scope, role, status, description)
VALUES (@id, @tenant_id, @key, @label, @type, @required, @enum_values, @scope, @role, @status, @description)
RETURNING *;

-- name: GetMetadataField :one
SELECT * FROM metadata_fields WHERE tenant_id = @tenant_id AND id = @id;

-- name: GetMetadataFieldForUpdate :one
SELECT * FROM metadata_fields WHERE tenant_id = @tenant_id AND id = @id FOR UPDATE;

-- name: ListMetadataFields :many
SELECT * FROM metadata_fields
WHERE tenant_id = @tenant_id
  AND (sqlc.narg(scope)::text IS NULL OR scope = sqlc.narg(scope))
  AND (sqlc.narg(role)::text IS NULL OR role = sqlc.narg(role))
  AND (CASE WHEN sqlc.narg(status)::text IS NOT NULL THEN status = sqlc.narg(status)
            WHEN @all_statuses::boolean THEN true
            WHEN @include_deprecated::boolean THEN status <> 'archived'
            ELSE status IN ('draft', 'active') END)
  AND (scope, key) > (@after_scope::text, @after_key::text)
ORDER BY scope, key
LIMIT @lim;

-- name: UpdateMetadataField :one
UPDATE metadata_fields
SET label = @label, type = @type, required = @required, enum_values = @enum_values, role = @role,
    description = @description, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id AND version = @version
RETURNING *;

-- name: SetMetadataFieldStatus :one
UPDATE metadata_fields SET status = @status, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id
RETURNING *;

-- name: DeleteMetadataField :execrows
DELETE FROM metadata_fields WHERE tenant_id = @tenant_id AND id = @id;

-- name: DeleteMetadataScope :exec
DELETE FROM metadata_fields WHERE tenant_id = @tenant_id AND scope = @scope;
