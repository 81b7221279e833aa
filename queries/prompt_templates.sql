-- Prompt templates, their immutable versions and the active template of
-- each scene. Every query filters by tenant_id: another tenant's template
-- is invisible, exactly like one that does not exist.

-- name: CreatePromptTemplate :one
INSERT INTO prompt_templates (id, tenant_id, name, description, scene)
VALUES (@id, @tenant_id, @name, @description, @scene)
RETURNING id;

-- name: InsertPromptVersion :exec
INSERT INTO prompt_template_versions (tenant_id, template_id, version, system_instruction, variables)
VALUES (@tenant_id, @template_id, @version, @system_instruction, @variables);

-- name: GetPromptTemplate :one
-- The template with its latest version's content.
SELECT t.id, t.tenant_id, t.name, t.description, t.scene, t.latest_version, t.published_version,
       t.version, t.created_at, t.updated_at, v.system_instruction, v.variables
FROM prompt_templates t
JOIN prompt_template_versions v ON v.tenant_id = t.tenant_id AND v.template_id = t.id AND v.version = t.latest_version
WHERE t.tenant_id = @tenant_id AND t.id = @id;

-- name: ListPromptTemplates :many
SELECT t.id, t.tenant_id, t.name, t.description, t.scene, t.latest_version, t.published_version,
       t.version, t.created_at, t.updated_at, v.system_instruction, v.variables
FROM prompt_templates t
JOIN prompt_template_versions v ON v.tenant_id = t.tenant_id AND v.template_id = t.id AND v.version = t.latest_version
WHERE t.tenant_id = @tenant_id
  AND (sqlc.narg(scene)::text IS NULL OR t.scene = sqlc.narg(scene))
  AND (@before::text = '' OR t.id < @before)
ORDER BY t.id DESC
LIMIT @lim;

-- name: LockPromptTemplate :one
-- Serialises the writes of one template (new versions, publishing).
SELECT id, scene, latest_version, published_version, version
FROM prompt_templates WHERE tenant_id = @tenant_id AND id = @id FOR UPDATE;

-- name: UpdatePromptTemplate :exec
UPDATE prompt_templates
SET name = @name, description = @description, latest_version = @latest_version,
    version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id;

-- name: SetPromptPublishedVersion :exec
UPDATE prompt_templates
SET published_version = @published_version, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id;

-- name: MarkPromptVersionPublished :execrows
UPDATE prompt_template_versions SET last_published_at = now()
WHERE tenant_id = @tenant_id AND template_id = @template_id AND version = @version;

-- name: SetActivePromptTemplate :exec
INSERT INTO prompt_scenes (tenant_id, scene, template_id)
VALUES (@tenant_id, @scene, @template_id)
ON CONFLICT (tenant_id, scene) DO UPDATE SET template_id = EXCLUDED.template_id, updated_at = now();

-- name: DeletePromptTemplate :execrows
DELETE FROM prompt_templates WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListPromptVersions :many
SELECT v.template_id, v.version, t.scene, v.system_instruction, v.variables, v.created_at, v.last_published_at,
       (t.published_version IS NOT NULL AND t.published_version = v.version)::boolean AS published
FROM prompt_template_versions v
JOIN prompt_templates t ON t.tenant_id = v.tenant_id AND t.id = v.template_id
WHERE v.tenant_id = @tenant_id AND v.template_id = @template_id
  AND (@before::integer = 0 OR v.version < @before)
ORDER BY v.version DESC
LIMIT @lim;

-- name: GetPromptVersion :one
SELECT v.template_id, v.version, t.scene, v.system_instruction, v.variables, v.created_at, v.last_published_at,
       (t.published_version IS NOT NULL AND t.published_version = v.version)::boolean AS published
FROM prompt_template_versions v
JOIN prompt_templates t ON t.tenant_id = v.tenant_id AND t.id = v.template_id
WHERE v.tenant_id = @tenant_id AND v.template_id = @template_id AND v.version = @version;

-- name: GetPublishedPrompt :one
-- The published version of the scene's active template.
SELECT v.template_id, v.version, t.scene, v.system_instruction, v.variables, v.created_at, v.last_published_at,
       true::boolean AS published
FROM prompt_scenes s
JOIN prompt_templates t ON t.tenant_id = s.tenant_id AND t.id = s.template_id
JOIN prompt_template_versions v ON v.tenant_id = t.tenant_id AND v.template_id = t.id AND v.version = t.published_version
WHERE s.tenant_id = @tenant_id AND s.scene = @scene;

-- name: PromptTemplateExists :one
SELECT EXISTS (SELECT 1 FROM prompt_templates WHERE tenant_id = @tenant_id AND id = @id);
