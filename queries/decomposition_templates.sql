-- Decomposition templates, their immutable versions and the tenant's active
-- template. Every query filters by tenant_id: another tenant's template is
-- invisible, exactly like one that does not exist.

-- name: CreateDecompositionTemplate :one
INSERT INTO decomposition_templates (id, tenant_id, name, description)
VALUES (@id, @tenant_id, @name, @description)
RETURNING id;

-- name: InsertDecompositionVersion :exec
INSERT INTO decomposition_template_versions (tenant_id, template_id, version, instruction, targets)
VALUES (@tenant_id, @template_id, @version, @instruction, @targets);

-- name: GetDecompositionTemplate :one
-- The template with its latest version's content.
SELECT t.id, t.tenant_id, t.name, t.description, t.latest_version, t.published_version, t.version,
       t.created_at, t.updated_at, v.instruction, v.targets,
       EXISTS (SELECT 1 FROM decomposition_active a WHERE a.tenant_id = t.tenant_id AND a.template_id = t.id)::boolean AS active
FROM decomposition_templates t
JOIN decomposition_template_versions v ON v.tenant_id = t.tenant_id AND v.template_id = t.id AND v.version = t.latest_version
WHERE t.tenant_id = @tenant_id AND t.id = @id;

-- name: ListDecompositionTemplates :many
SELECT t.id, t.tenant_id, t.name, t.description, t.latest_version, t.published_version, t.version,
       t.created_at, t.updated_at, v.instruction, v.targets,
       EXISTS (SELECT 1 FROM decomposition_active a WHERE a.tenant_id = t.tenant_id AND a.template_id = t.id)::boolean AS active
FROM decomposition_templates t
JOIN decomposition_template_versions v ON v.tenant_id = t.tenant_id AND v.template_id = t.id AND v.version = t.latest_version
WHERE t.tenant_id = @tenant_id
  AND (@before::text = '' OR t.id < @before)
ORDER BY t.id DESC
LIMIT @lim;

-- name: LockDecompositionTemplate :one
-- Serialises the writes of one template (new versions, publishing).
SELECT id, latest_version, published_version, version
FROM decomposition_templates WHERE tenant_id = @tenant_id AND id = @id FOR UPDATE;

-- name: UpdateDecompositionTemplate :exec
UPDATE decomposition_templates
SET name = @name, description = @description, latest_version = @latest_version,
    version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id;

-- name: SetDecompositionPublishedVersion :exec
UPDATE decomposition_templates
SET published_version = @published_version, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id;

-- name: MarkDecompositionVersionPublished :execrows
UPDATE decomposition_template_versions SET last_published_at = now()
WHERE tenant_id = @tenant_id AND template_id = @template_id AND version = @version;

-- name: SetActiveDecompositionTemplate :exec
INSERT INTO decomposition_active (tenant_id, template_id)
VALUES (@tenant_id, @template_id)
ON CONFLICT (tenant_id) DO UPDATE SET template_id = EXCLUDED.template_id, updated_at = now();

-- name: DeleteDecompositionTemplate :execrows
DELETE FROM decomposition_templates WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListDecompositionVersions :many
SELECT v.template_id, v.version, v.instruction, v.targets, v.created_at, v.last_published_at,
       (t.published_version IS NOT NULL AND t.published_version = v.version)::boolean AS published
FROM decomposition_template_versions v
JOIN decomposition_templates t ON t.tenant_id = v.tenant_id AND t.id = v.template_id
WHERE v.tenant_id = @tenant_id AND v.template_id = @template_id
  AND (@before::integer = 0 OR v.version < @before)
ORDER BY v.version DESC
LIMIT @lim;

-- name: GetDecompositionVersion :one
SELECT v.template_id, v.version, v.instruction, v.targets, v.created_at, v.last_published_at,
       (t.published_version IS NOT NULL AND t.published_version = v.version)::boolean AS published
FROM decomposition_template_versions v
JOIN decomposition_templates t ON t.tenant_id = v.tenant_id AND t.id = v.template_id
WHERE v.tenant_id = @tenant_id AND v.template_id = @template_id AND v.version = @version;

-- name: GetPublishedDecomposition :one
-- The published version of the tenant's active template.
SELECT v.template_id, v.version, v.instruction, v.targets, v.created_at, v.last_published_at,
       true::boolean AS published
FROM decomposition_active a
JOIN decomposition_templates t ON t.tenant_id = a.tenant_id AND t.id = a.template_id
JOIN decomposition_template_versions v ON v.tenant_id = t.tenant_id AND v.template_id = t.id AND v.version = t.published_version
WHERE a.tenant_id = @tenant_id;

-- name: DecompositionTemplateExists :one
SELECT EXISTS (SELECT 1 FROM decomposition_templates WHERE tenant_id = @tenant_id AND id = @id);
