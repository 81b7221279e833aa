-- What tenants hold, as their quotas count it. Every query filters by
-- tenant_id.

-- name: LockTenantQuota :exec
-- Serialises a tenant's writes counted by one quota for the rest of the
-- transaction, so that the quota holds under concurrent writes.
SELECT pg_advisory_xact_lock(hashtextextended('quota:' || @tenant_id::text || ':' || @quota::text, 0));

-- name: TenantHoldings :one
-- The documents' sums leave out except_document, whose chunks are being
-- replaced ('' leaves out none).
SELECT
    (SELECT count(*) FROM knowledge_bases k WHERE k.tenant_id = @tenant_id)::bigint AS knowledge_bases,
    d.documents, d.stored_bytes, d.chunks, d.chunk_text_bytes,
    (SELECT count(*) FROM intent_rules r WHERE r.tenant_id = @tenant_id)::bigint AS intent_rules,
    (SELECT count(*) FROM script_flows f WHERE f.tenant_id = @tenant_id)::bigint AS script_flows,
    (SELECT count(*) FROM prompt_templates p WHERE p.tenant_id = @tenant_id)::bigint AS prompt_templates,
    (SELECT count(*) FROM decomposition_templates t WHERE t.tenant_id = @tenant_id)::bigint AS decomposition_templates
FROM (SELECT count(*)::bigint AS documents,
             coalesce(sum(size_bytes), 0)::bigint AS stored_bytes,
             coalesce(sum(stored_chunks), 0)::bigint AS chunks,
             coalesce(sum(chunk_text_bytes), 0)::bigint AS chunk_text_bytes
      FROM documents dd WHERE dd.tenant_id = @tenant_id AND dd.id <> @except_document::text) d;

-- name: SetDocumentHoldings :exec
UPDATE documents SET stored_chunks = @stored_chunks, chunk_text_bytes = @chunk_text_bytes
WHERE tenant_id = @tenant_id AND id = @id;
