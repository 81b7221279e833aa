-- Every query filters by tenant_id.

-- name: CreateDocument :one
INSERT INTO documents (id, tenant_id, kb_id, name, kind, size_bytes, sha256, status, metadata)
VALUES (@id, @tenant_id, @kb_id, @name, @kind, @size_bytes, @sha256, 'queued', @metadata)
RETURNING *;

-- name: CreateDocumentFile :exec
INSERT INTO document_files (document_id, tenant_id, content) VALUES (@document_id, @tenant_id, @content);

-- name: GetDocument :one
SELECT * FROM documents WHERE tenant_id = @tenant_id AND id = @id;

-- name: GetDocumentFile :one
SELECT content FROM document_files WHERE tenant_id = @tenant_id AND document_id = @document_id;

-- name: ListDocuments :many
SELECT * FROM documents
WHERE tenant_id = @tenant_id
  AND (sqlc.narg(kb_id)::text IS NULL OR kb_id = sqlc.narg(kb_id))
  AND (sqlc.narg(status)::text IS NULL OR status = sqlc.narg(status))
  AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: DeleteDocument :execrows
DELETE FROM documents WHERE tenant_id = @tenant_id AND id = @id;

-- name: SetDocumentStatus :exec
UPDATE documents SET status = @status, updated_at = now() WHERE tenant_id = @tenant_id AND id = @id;

-- name: SetDocumentReady :exec
UPDATE documents SET status = 'ready', chunk_count = @chunk_count, embedding_model = @embedding_model, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id;

-- name: LockDocument :one
SELECT id FROM documents WHERE tenant_id = @tenant_id AND id = @id FOR UPDATE;
