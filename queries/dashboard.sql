-- The dashboard: hourly facts computed from the stored messages and
-- monitoring records, the roll-ups that keep them for closed hours, and
-- the counts of documents and index jobs. Every query filters by tenant_id.

-- name: DashboardFacts :many
-- The figures of each UTC hour of [from_at, to_at), as (hour, metric, key,
-- n, total) rows: what the roll-up stores per hour and what the stats read
-- live for the hours after the mark. One definition for both, so the two
-- can never count differently. Latency is the sum of a reply's stage
-- durations; its bucket k holds (0.1 ms * 1.05^(k-1), 0.1 ms * 1.05^k] (0:
-- up to 0.1 ms); a confidence's bucket is its hundredths (1 alone in 100).
-- An unanswered text is the customer message just before a handed-off
-- reply, normalised (NFKC, lower case, punctuation as space, runs of white
-- space as one, trimmed, 200 characters).
WITH msgs AS MATERIALIZED (
    SELECT m.id, m.session_id, m.role, m.should_transfer, m.transfer_reason, m.confidence,
           coalesce(m.response_type, '') AS response_type,
           date_trunc('hour', m.created_at, 'UTC')::timestamptz AS hour,
           m.monitoring
    FROM chat_messages m
    WHERE m.tenant_id = @tenant_id AND m.created_at >= @from_at AND m.created_at < @to_at
), replies AS MATERIALIZED (
    SELECT r.id, r.session_id, r.hour, r.response_type, r.should_transfer, r.transfer_reason, r.confidence,
           r.monitoring IS NOT NULL AS monitored,
           (SELECT coalesce(sum((s.value ->> 'durationUs')::bigint), 0)
            FROM jsonb_array_elements(coalesce(r.monitoring -> 'stages', '[]'::jsonb)) s)::float8 / 1000 AS latency_ms,
           r.monitoring ->> 'model' AS model,
           coalesce((r.monitoring ->> 'tokensIn')::bigint, 0) AS tokens_in,
           coalesce((r.monitoring ->> 'tokensOut')::bigint, 0) AS tokens_out
    FROM msgs r
    WHERE r.role = 'assistant'
)
SELECT date_trunc('hour', s.created_at, 'UTC')::timestamptz AS hour, 'sessions'::text AS metric, ''::text AS key,
       count(*)::bigint AS n, 0::float8 AS total
FROM chat_sessions s
WHERE s.tenant_id = @tenant_id AND s.created_at >= @from_at AND s.created_at < @to_at
GROUP BY 1
UNION ALL
SELECT msgs.hour, 'customer_messages', '', count(*), 0 FROM msgs WHERE msgs.role = 'user' GROUP BY msgs.hour
UNION ALL
SELECT replies.hour, 'replies', replies.response_type, count(*), 0 FROM replies GROUP BY replies.hour, replies.response_type
UNION ALL
SELECT replies.hour, 'handoffs', coalesce(replies.transfer_reason, ''), count(*), 0
FROM replies WHERE replies.should_transfer GROUP BY replies.hour, coalesce(replies.transfer_reason, '')
UNION ALL
SELECT replies.hour, 'confidence', least(floor(greatest(replies.confidence, 0) * 100), 100)::int::text, count(*),
       sum(replies.confidence)
FROM replies WHERE replies.confidence IS NOT NULL
GROUP BY replies.hour, least(floor(greatest(replies.confidence, 0) * 100), 100)::int::text
UNION ALL
SELECT replies.hour, 'latency',
       (CASE WHEN replies.latency_ms <= 0.1 THEN 0
             ELSE least(ceil(ln(replies.latency_ms / 0.1) / ln(1.05)), 1000) END)::int::text,
       count(*), sum(replies.latency_ms)
FROM replies WHERE replies.monitored
GROUP BY replies.hour, 3
UNION ALL
SELECT replies.hour, 'tokens_in', replies.model, count(*), sum(replies.tokens_in)::float8
FROM replies WHERE replies.model IS NOT NULL GROUP BY replies.hour, replies.model
UNION ALL
SELECT replies.hour, 'tokens_out', replies.model, count(*), sum(replies.tokens_out)::float8
FROM replies WHERE replies.model IS NOT NULL GROUP BY replies.hour, replies.model
UNION ALL
SELECT replies.hour, 'unanswered', q.text, count(*), 0
FROM replies
CROSS JOIN LATERAL (
    SELECT p.role, p.content FROM chat_messages p
    WHERE p.tenant_id = @tenant_id AND p.session_id = replies.session_id AND p.id < replies.id
    ORDER BY p.id DESC LIMIT 1
) prev
CROSS JOIN LATERAL (
    SELECT left(btrim(regexp_replace(
               regexp_replace(lower(normalize(prev.content, NFKC)), '[[:punct:]。、“”‘’「」『』《》【】〈〉…·～]', ' ', 'g'),
               '\s+', ' ', 'g')), 200) AS text
) q
WHERE replies.should_transfer AND prev.role = 'user' AND q.text <> ''
GROUP BY replies.hour, q.text
UNION ALL
SELECT date_trunc('hour', h.at, 'UTC')::timestamptz, 'intent_hits', h.rule_id, count(*), 0
FROM intent_hits h
WHERE h.tenant_id = @tenant_id AND h.at >= @from_at AND h.at < @to_at
GROUP BY 1, h.rule_id
UNION ALL
SELECT date_trunc('hour', g.at, 'UTC')::timestamptz, 'guard', g.stage || ':' || g.action, count(*), 0
FROM guard_hits g
WHERE g.tenant_id = @tenant_id AND g.at >= @from_at AND g.at < @to_at
GROUP BY 1, 3;

-- name: GetDashboardRollupMark :one
SELECT rolled_up_to FROM dashboard_rollup_marks WHERE tenant_id = @tenant_id;

-- name: DashboardRolledTotals :many
-- The roll-ups' totals of [from_at, to_at) per metric and key, for the
-- metrics named (all but the unanswered texts, see below).
SELECT r.metric, r.key, sum(r.n)::bigint AS n, sum(r.total)::float8 AS total
FROM dashboard_rollups r
WHERE r.tenant_id = @tenant_id AND r.metric = ANY(@metrics::text[]) AND r.hour >= @from_at AND r.hour < @to_at
GROUP BY r.metric, r.key;

-- name: DashboardRolledTopUnanswered :many
-- The most frequent unanswered texts of the roll-ups in [from_at, to_at).
-- With the counts of the live texts (DashboardRolledUnanswered) added, the
-- merged top stays exact: any other text's total is its rolled-up count,
-- at most these.
SELECT r.key, sum(r.n)::bigint AS n
FROM dashboard_rollups r
WHERE r.tenant_id = @tenant_id AND r.metric = 'unanswered' AND r.hour >= @from_at AND r.hour < @to_at
GROUP BY r.key
ORDER BY sum(r.n) DESC, r.key
LIMIT @top;

-- name: DashboardRolledUnanswered :many
-- The rolled-up counts of some unanswered texts in [from_at, to_at).
SELECT r.key, sum(r.n)::bigint AS n
FROM dashboard_rollups r
WHERE r.tenant_id = @tenant_id AND r.metric = 'unanswered' AND r.hour >= @from_at AND r.hour < @to_at
  AND r.key = ANY(@keys::text[])
GROUP BY r.key;

-- name: DashboardRolledSeries :many
-- The roll-ups of [from_at, to_at) per bucket (unit: 'hour' or 'day', in
-- UTC) of what the time series shows.
SELECT date_trunc(@unit::text, r.hour, 'UTC')::timestamptz AS bucket, r.metric,
       (CASE WHEN r.metric = 'latency' THEN r.key ELSE '' END)::text AS key,
       sum(r.n)::bigint AS n, sum(r.total)::float8 AS total
FROM dashboard_rollups r
WHERE r.tenant_id = @tenant_id AND r.hour >= @from_at AND r.hour < @to_at
  AND r.metric IN ('customer_messages', 'replies', 'handoffs', 'latency')
GROUP BY 1, 2, 3;

-- name: CountDocumentsByStatus :many
SELECT status, count(*)::bigint AS n FROM documents WHERE tenant_id = @tenant_id GROUP BY status;

-- name: CountIndexJobsByState :many
SELECT state, count(*)::bigint AS n FROM index_jobs WHERE tenant_id = @tenant_id GROUP BY state;

-- name: DashboardRuleNames :many
SELECT id, name FROM intent_rules WHERE tenant_id = @tenant_id AND id = ANY(@ids::text[]);

-- name: ListDashboardTenants :many
-- Every tenant, for the roll-up job (tenants is not tenant-scoped).
SELECT id FROM tenants ORDER BY id;

-- name: EnsureDashboardRollupMark :exec
INSERT INTO dashboard_rollup_marks (tenant_id) VALUES (@tenant_id) ON CONFLICT (tenant_id) DO NOTHING;

-- name: LockDashboardRollupMark :one
-- Held until the roll-up commits: another replica waits, then finds the
-- hours done.
SELECT rolled_up_to FROM dashboard_rollup_marks WHERE tenant_id = @tenant_id FOR UPDATE;

-- name: SetDashboardRollupMark :exec
UPDATE dashboard_rollup_marks SET rolled_up_to = @rolled_up_to WHERE tenant_id = @tenant_id;

-- AddDashboardRollups adds facts to the roll-ups: an hour rolled up a few
-- minutes at a time adds to its rows (counts and sums only add). The arrays
-- are the facts' columns, zipped by unnest in the select list.
-- name: AddDashboardRollups :exec
INSERT INTO dashboard_rollups (tenant_id, hour, metric, key, n, total)
SELECT @tenant_id, unnest(@hours::timestamptz[]), unnest(@metrics::text[]), unnest(@keys::text[]),
       unnest(@ns::bigint[]), unnest(@totals::float8[])
ON CONFLICT (tenant_id, metric, hour, key)
DO UPDATE SET n = dashboard_rollups.n + EXCLUDED.n, total = dashboard_rollups.total + EXCLUDED.total;

-- name: DashboardOldestRecord :one
-- Where a tenant's first roll-up starts: its oldest session, message,
-- intent hit or guard hit (none_at when it has none), each read off an
-- index.
SELECT coalesce(least(
    (SELECT min(s.created_at) FROM chat_sessions s WHERE s.tenant_id = @tenant_id),
    (SELECT min(m.created_at) FROM chat_messages m WHERE m.tenant_id = @tenant_id),
    (SELECT min(h.at) FROM intent_hits h WHERE h.tenant_id = @tenant_id),
    (SELECT min(g.at) FROM guard_hits g WHERE g.tenant_id = @tenant_id)), @none_at::timestamptz)::timestamptz AS oldest;
