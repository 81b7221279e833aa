-- Vectors of the embedded vector store. Every query filters by tenant_id.

-- name: DeleteDocumentVectors :exec
DELETE FROM chunk_vectors WHERE tenant_id = @tenant_id AND document_id = @document_id;

-- name: DeleteKnowledgeBaseVectors :exec
DELETE FROM chunk_vectors WHERE tenant_id = @tenant_id AND kb_id = @kb_id;

-- name: DeleteVectorsByChunkIDs :exec
DELETE FROM chunk_vectors WHERE tenant_id = @tenant_id AND chunk_id = ANY(@chunk_ids::text[]);

-- name: InsertChunkVectors :copyfrom
INSERT INTO chunk_vectors (chunk_id, tenant_id, kb_id, document_id, model, dims, vector, metadata)
VALUES (@chunk_id, @tenant_id, @kb_id, @document_id, @model, @dims, @vector, @metadata);

-- name: ListDocumentVectors :many
SELECT * FROM chunk_vectors WHERE tenant_id = @tenant_id AND document_id = @document_id;

-- name: CountTenantVectors :one
SELECT count(*) FROM chunk_vectors WHERE tenant_id = @tenant_id;
