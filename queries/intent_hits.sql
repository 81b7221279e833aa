-- Intent monitoring: the hits rules scored and the messages evaluated.
-- Every query filters by tenant_id.

-- name: InsertIntentHit :exec
-- A hit whose rule is gone (deleted since the message matched it) is not
-- stored, rather than breaking the foreign key: it runs among the turn's
-- other writes, which it must not fail.
INSERT INTO intent_hits (tenant_id, rule_id, session_id, message_id, keywords, patterns, at)
SELECT @tenant_id, @rule_id, @session_id, @message_id, @keywords, @patterns, @at
WHERE EXISTS (SELECT 1 FROM intent_rules WHERE tenant_id = @tenant_id AND id = @rule_id);

-- name: CountIntentEvaluation :exec
-- One of the hour's stripes (0–7): replies of one tenant that commit at
-- the same time seldom wait for the same row.
INSERT INTO intent_evaluations (tenant_id, hour, stripe, evaluated)
VALUES (@tenant_id, @hour, @stripe, 1)
ON CONFLICT (tenant_id, hour, stripe) DO UPDATE SET evaluated = intent_evaluations.evaluated + 1;

-- name: SumIntentEvaluations :one
SELECT coalesce(sum(evaluated), 0)::bigint FROM intent_evaluations
WHERE tenant_id = @tenant_id AND hour >= @from_at AND hour < @to_at;

-- name: IntentRuleHitStats :many
-- A page of the tenant's rules, newest first, each with its hits in the
-- range and its last hit ever (both read from intent_hits_by_rule).
SELECT r.id, r.name, r.enabled, r.priority,
       (SELECT count(*) FROM intent_hits h
        WHERE h.tenant_id = r.tenant_id AND h.rule_id = r.id AND h.at >= @from_at AND h.at < @to_at)::bigint AS hits,
       -- sqlc cannot type a nullable lateral column: ever_hit says whether
       -- last_hit_at is real.
       (last.at IS NOT NULL)::boolean AS ever_hit,
       coalesce(last.at, 'epoch'::timestamptz)::timestamptz AS last_hit_at
FROM intent_rules r
LEFT JOIN LATERAL (SELECT h.at FROM intent_hits h WHERE h.tenant_id = r.tenant_id AND h.rule_id = r.id
                   ORDER BY h.at DESC LIMIT 1) last ON true
WHERE r.tenant_id = @tenant_id AND (@before::text = '' OR r.id < @before)
ORDER BY r.id DESC
LIMIT @lim;

-- name: ListIntentHits :many
-- A rule's hits newest first; the cursor is the last row's (at, id).
SELECT * FROM intent_hits
WHERE tenant_id = @tenant_id AND rule_id = @rule_id
  AND (NOT @after::boolean OR (at, id) < (@before_at::timestamptz, @before_id::bigint))
ORDER BY at DESC, id DESC
LIMIT @lim;
