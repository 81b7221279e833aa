-- Every query filters by tenant_id: a knowledge base of another tenant is
-- invisible, exactly like one that does not exist.

-- name: CreateKnowledgeBase :one
INSERT INTO knowledge_bases (id, tenant_id, name, description, question_generation)
VALUES (@id, @tenant_id, @name, @description, @question_generation)
RETURNING *;

-- name: GetKnowledgeBase :one
SELECT kb.id, kb.tenant_id, kb.name, kb.description, kb.version, kb.created_at, kb.updated_at, kb.question_generation,
       (SELECT count(*) FROM documents d WHERE d.tenant_id = kb.tenant_id AND d.kb_id = kb.id)::integer AS document_count
FROM knowledge_bases kb
WHERE kb.tenant_id = @tenant_id AND kb.id = @id;

-- name: ListKnowledgeBases :many
SELECT kb.id, kb.tenant_id, kb.name, kb.description, kb.version, kb.created_at, kb.updated_at, kb.question_generation,
       (SELECT count(*) FROM documents d WHERE d.tenant_id = kb.tenant_id AND d.kb_id = kb.id)::integer AS document_count
FROM knowledge_bases kb
WHERE kb.tenant_id = @tenant_id AND (@before::text = '' OR kb.id < @before)
ORDER BY kb.id DESC
LIMIT @lim;

-- name: UpdateKnowledgeBase :one
UPDATE knowledge_bases
SET name = @name, description = @description, question_generation = @question_generation, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id AND version = @version
RETURNING id;

-- name: KnowledgeBaseExists :one
SELECT EXISTS (SELECT 1 FROM knowledge_bases WHERE tenant_id = @tenant_id AND id = @id);

-- name: DeleteKnowledgeBase :execrows
DELETE FROM knowledge_bases WHERE tenant_id = @tenant_id AND id = @id;

