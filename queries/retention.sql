-- Retention: the purge of monitoring records and messages older than each
-- tenant's retention. Every delete takes one batch of one tenant's oldest
-- rows (by ctid, from the tenant's time index) so that no statement holds
-- locks for long; the caller repeats it until a batch comes back short.
-- ListRetentionPolicies alone reads across tenants: the purge serves them
-- all.

-- name: ListRetentionPolicies :many
SELECT tenant_id, monitoring_retention_days, message_retention_days FROM tenant_settings
WHERE tenant_id > @after
ORDER BY tenant_id
LIMIT @lim;

-- name: PurgeIntentHits :execrows
DELETE FROM intent_hits WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM intent_hits x WHERE x.tenant_id = @tenant_id AND x.at < @before LIMIT @lim));

-- name: PurgeIntentEvaluations :execrows
-- An hour goes once all of it is older than the cutoff (@before is its
-- start hour bound, computed by the store).
DELETE FROM intent_evaluations WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM intent_evaluations x WHERE x.tenant_id = @tenant_id AND x.hour < @before LIMIT @lim));

-- name: PurgeDashboardRollups :execrows
-- The dashboard's hourly figures go with the records they count, by the
-- same hour rule.
DELETE FROM dashboard_rollups WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM dashboard_rollups x WHERE x.tenant_id = @tenant_id AND x.hour < @before LIMIT @lim));

-- name: PurgeFlowEvents :execrows
DELETE FROM flow_events WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM flow_events x WHERE x.tenant_id = @tenant_id AND x.at < @before LIMIT @lim));

-- name: PurgePromptRenders :execrows
DELETE FROM prompt_renders WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM prompt_renders x WHERE x.tenant_id = @tenant_id AND x.at < @before LIMIT @lim));

-- name: PurgeGuardHits :execrows
DELETE FROM guard_hits WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM guard_hits x WHERE x.tenant_id = @tenant_id AND x.at < @before LIMIT @lim));

-- name: PurgeRetrievalEvents :execrows
DELETE FROM retrieval_events WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM retrieval_events x WHERE x.tenant_id = @tenant_id AND x.created_at < @before LIMIT @lim));

-- name: PurgeTenantReplyEvents :execrows
DELETE FROM reply_events WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM reply_events x WHERE x.tenant_id = @tenant_id AND x.created_at < @before LIMIT @lim));

-- name: PurgeChatMessages :execrows
-- Their tool traces and reply events go with them (ON DELETE CASCADE).
DELETE FROM chat_messages WHERE ctid = ANY(ARRAY(
    SELECT x.ctid FROM chat_messages x WHERE x.tenant_id = @tenant_id AND x.created_at < @before LIMIT @lim));

-- name: PurgeChatSessions :execrows
-- Sessions idle since before the cutoff whose messages are all gone. A
-- session a new message is being written to right now is locked by that
-- write's foreign-key check and skipped.
DELETE FROM chat_sessions WHERE ctid = ANY(ARRAY(
    SELECT s.ctid FROM chat_sessions s
    WHERE s.tenant_id = @tenant_id AND s.updated_at < @before
      AND NOT EXISTS (SELECT 1 FROM chat_messages m WHERE m.tenant_id = s.tenant_id AND m.session_id = s.id)
    LIMIT @lim
    FOR UPDATE SKIP LOCKED));

-- name: TryPurgeLock :one
-- One replica purges at a time: a session-level advisory lock, held on the
-- connection that runs the purge.
SELECT pg_try_advisory_lock(hashtextextended('retention_purge', 0));

-- name: ReleasePurgeLock :one
SELECT pg_advisory_unlock(hashtextextended('retention_purge', 0));
