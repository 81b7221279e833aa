-- Guardrail hits recorded by the dialogue, and their aggregates for
-- monitoring. Every query filters by tenant_id.

-- name: InsertGuardHit :exec
INSERT INTO guard_hits (tenant_id, session_id, message_id, stage, kind, ref_id, category, pattern, action, at)
VALUES (@tenant_id, @session_id, @message_id, @stage, @kind, @ref_id, @category, @pattern, @action, @at);

-- name: GuardHitStageStats :many
SELECT stage,
       count(*)::integer AS hits,
       count(DISTINCT message_id)::integer AS messages,
       count(DISTINCT message_id) FILTER (WHERE action IN ('block', 'replace'))::integer AS blocked,
       count(DISTINCT message_id) FILTER (WHERE action = 'transfer')::integer AS transferred
FROM guard_hits
WHERE tenant_id = @tenant_id AND at >= @from_at AND at < @to_at
GROUP BY stage
ORDER BY stage;

-- name: GuardHitRefStats :many
-- Hits of one kind, per word or rule id (per category for high_risk),
-- with the pattern of the latest hit.
SELECT (CASE WHEN @kind::text = 'high_risk' THEN category ELSE ref_id END)::text AS ref,
       count(*)::integer AS hits,
       count(*) FILTER (WHERE stage = 'input')::integer AS input_hits,
       count(*) FILTER (WHERE action IN ('block', 'replace'))::integer AS blocks,
       count(*) FILTER (WHERE action = 'transfer')::integer AS transfers,
       max(at)::timestamptz AS last_hit_at,
       (array_agg(pattern ORDER BY at DESC))[1]::text AS last_pattern
FROM guard_hits
WHERE tenant_id = @tenant_id AND kind = @kind::text AND at >= @from_at AND at < @to_at
GROUP BY 1
ORDER BY hits DESC, ref
LIMIT @lim;

-- name: GuardWordLabels :many
SELECT id, word FROM guard_forbidden_words WHERE tenant_id = @tenant_id AND id = ANY(@ids::text[]);

-- name: GuardRuleLabels :many
SELECT id, name FROM guard_behavior_rules WHERE tenant_id = @tenant_id AND id = ANY(@ids::text[]);
