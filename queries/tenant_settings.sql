-- name: GetTenantSettings :one
SELECT * FROM tenant_settings WHERE tenant_id = @tenant_id;

-- name: UpdateTenantSettings :one
UPDATE tenant_settings
SET transfer_confidence_threshold = @transfer_confidence_threshold,
    min_hits = @min_hits,
    min_top_score = @min_top_score,
    min_evidence_tokens = @min_evidence_tokens,
    retrieval_score_threshold = @retrieval_score_threshold,
    frontend_base_url = sqlc.narg(frontend_base_url),
    kb_vector_log_enabled = @kb_vector_log_enabled,
    kb_vector_log_path = @kb_vector_log_path,
    timezone = @timezone,
    handoff_message_en = sqlc.narg(handoff_message_en),
    handoff_message_zh = sqlc.narg(handoff_message_zh),
    monitoring_retention_days = @monitoring_retention_days,
    message_retention_days = sqlc.narg(message_retention_days),
    version = version + 1,
    updated_at = now()
WHERE tenant_id = @tenant_id AND version = @version
RETURNING *;
