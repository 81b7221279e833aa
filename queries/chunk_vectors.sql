-- Vectors of the embedded vector store. Every query filters by tenant_id.

-- name: DeleteDocumentVectors :exec
DELETE FROM chunk_vectors WHERE tenant_id = @tenant_id AND document_id = @document_id;

-- name: DeleteKnowledgeBaseVectors :exec
DELETE FROM chunk_vectors WHERE tenant_id = @tenant_id AND kb_id = @kb_id;

-- name: ListVectorTenants :many
SELECT DISTINCT tenant_id FROM chunk_vectors WHERE tenant_id > @after ORDER BY tenant_id LIMIT 1000;

-- name: ListTenantVectors :many
SELECT * FROM chunk_vectors WHERE tenant_id = @tenant_id AND chunk_id > @after ORDER BY chunk_id LIMIT @lim;

-- name: DeleteVectorsByChunkIDs :exec
DELETE FROM chunk_vectors WHERE tenant_id = @tenant_id AND chunk_id = ANY(@chunk_ids::text[]);

-- name: InsertChunkVectors :copyfrom
INSERT INTO chunk_vectors (chunk_id, tenant_id, kb_id, document_id, model, dims, vector, metadata)
VALUES (@chunk_id, @tenant_id, @kb_id, @document_id, @model, @dims, @vector, @metadata);

-- name: ListDocumentVectors :many
SELECT * FROM chunk_vectors WHERE tenant_id = @tenant_id AND document_id = @document_id;

-- name: ListVectorDocumentsSince :many
-- The documents of every tenant whose vectors were written since @since:
-- what a replica's vector listener missed while it was not connected.
SELECT DISTINCT tenant_id, document_id FROM chunk_vectors WHERE created_at >= @since::timestamptz;
