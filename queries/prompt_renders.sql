-- Render records of prompt templates, written by the message pipeline and
-- aggregated by the template monitoring.

-- name: InsertPromptRender :exec
INSERT INTO prompt_renders (tenant_id, template_id, version, scene, tokens, fallback, at)
VALUES (@tenant_id, @template_id, @version, @scene, @tokens, @fallback, @at);

-- name: PromptRenderStats :many
-- Per template version and scene; the name is '' once the template is
-- deleted (the records outlive it) and for the built-in instruction.
SELECT r.template_id, COALESCE(t.name, '')::text AS template_name, r.version, r.scene,
       count(*)::bigint AS renders,
       (count(*) FILTER (WHERE r.fallback))::bigint AS fallbacks,
       COALESCE(sum(r.tokens), 0)::bigint AS tokens_total
FROM prompt_renders r
LEFT JOIN prompt_templates t ON t.tenant_id = r.tenant_id AND t.id = r.template_id
WHERE r.tenant_id = @tenant_id AND r.at >= @from_at AND r.at < @to_at
  AND (sqlc.narg(scene)::text IS NULL OR r.scene = sqlc.narg(scene))
GROUP BY r.template_id, t.name, r.version, r.scene
ORDER BY r.template_id, r.version DESC, r.scene
LIMIT 1000;
