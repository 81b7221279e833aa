-- Slot definitions. Every query filters by tenant_id: another tenant's
-- definition is invisible, exactly like one that does not exist.

-- name: CreateSlotDefinition :one
INSERT INTO slot_definitions (id, tenant_id, key, label, type, enum_values, required, pattern, prompt,
                              metadata_field_id, status, description)
VALUES (@id, @tenant_id, @key, @label, @type, @enum_values, @required, sqlc.narg(pattern), @prompt,
        sqlc.narg(metadata_field_id), @status, @description)
RETURNING *;

-- name: CountSlotDefinitions :one
SELECT count(*) FROM slot_definitions WHERE tenant_id = @tenant_id;

-- name: GetSlotDefinition :one
SELECT * FROM slot_definitions WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListSlotDefinitions :many
SELECT * FROM slot_definitions
WHERE tenant_id = @tenant_id
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND key > @after_key
ORDER BY key
LIMIT @lim;

-- name: UpdateSlotDefinition :one
UPDATE slot_definitions
SET label = @label, type = @type, enum_values = @enum_values, required = @required, pattern = sqlc.narg(pattern),
    prompt = @prompt, metadata_field_id = sqlc.narg(metadata_field_id), status = @status,
    description = @description, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id AND version = @version
RETURNING *;

-- name: DeleteSlotDefinition :execrows
DELETE FROM slot_definitions WHERE tenant_id = @tenant_id AND id = @id;
