-- Every query filters by tenant_id.

-- name: DeleteDocumentChunks :exec
DELETE FROM chunks WHERE tenant_id = @tenant_id AND document_id = @document_id;

-- name: ListChunks :many
SELECT * FROM chunks
WHERE tenant_id = @tenant_id AND document_id = @document_id AND idx > @after_idx
ORDER BY idx
LIMIT @lim;

-- name: GetChunksByIDs :many
SELECT c.*, d.name AS document_name, COALESCE(p.text, '')::text AS context, COALESCE(p.tokens, 0)::integer AS context_tokens
FROM chunks c
JOIN documents d ON d.tenant_id = c.tenant_id AND d.id = c.document_id
LEFT JOIN passages p ON p.tenant_id = c.tenant_id AND p.document_id = c.document_id AND p.idx = c.parent_idx
WHERE c.tenant_id = @tenant_id AND c.id = ANY(@ids::text[]);

-- name: DeleteDocumentPassages :exec
DELETE FROM passages WHERE tenant_id = @tenant_id AND document_id = @document_id;

-- name: InsertPassages :copyfrom
INSERT INTO passages (tenant_id, document_id, idx, text, tokens)
VALUES (@tenant_id, @document_id, @idx, @text, @tokens);

-- name: InsertChunks :copyfrom
INSERT INTO chunks (id, tenant_id, kb_id, document_id, idx, text, tokens, page, sheet, heading, line_start, line_end, metadata, parent_idx, heading_path, kind)
VALUES (@id, @tenant_id, @kb_id, @document_id, @idx, @text, @tokens, @page, @sheet, @heading, @line_start, @line_end, @metadata, @parent_idx, @heading_path, @kind);

-- name: ListDocumentChunkTexts :many
SELECT id, kb_id, document_id, text, metadata, heading_path FROM chunks
WHERE tenant_id = @tenant_id AND document_id = @document_id;
