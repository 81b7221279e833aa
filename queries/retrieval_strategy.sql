-- Every query filters by tenant_id.

-- name: GetRetrievalStrategy :one
SELECT config FROM retrieval_strategies WHERE tenant_id = @tenant_id;

-- name: UpsertRetrievalStrategy :exec
INSERT INTO retrieval_strategies (tenant_id, config) VALUES (@tenant_id, @config)
ON CONFLICT (tenant_id) DO UPDATE SET config = EXCLUDED.config, updated_at = now();

-- name: DeleteRetrievalStrategy :exec
DELETE FROM retrieval_strategies WHERE tenant_id = @tenant_id;

-- name: InsertStrategyAudit :exec
INSERT INTO retrieval_strategy_audit (id, tenant_id, action, key_id, from_config, to_config, findings)
VALUES (@id, @tenant_id, @action, @key_id, @from_config, @to_config, @findings);

-- name: ListStrategyAudit :many
SELECT * FROM retrieval_strategy_audit
WHERE tenant_id = @tenant_id AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: InsertRetrievalEvent :exec
INSERT INTO retrieval_events (tenant_id, strategy_id, config, hits, top_score, evidence_tokens, insufficient, transferred, latency_ms)
VALUES (@tenant_id, @strategy_id, @config, @hits, @top_score, @evidence_tokens, @insufficient, @transferred, @latency_ms);

-- name: RecentRetrievalEvents :many
SELECT * FROM retrieval_events WHERE tenant_id = @tenant_id ORDER BY id DESC LIMIT @lim;

-- name: RetrievalMetrics :many
-- Over the last 30 days, per strategy, newest strategies first.
SELECT strategy_id,
       (array_agg(config ORDER BY id DESC))[1]::jsonb AS config,
       count(*) AS queries,
       avg(hits)::double precision AS mean_hits,
       avg(top_score)::double precision AS mean_top_score,
       avg(insufficient::int)::double precision AS insufficient_rate,
       avg(transferred::int)::double precision AS transfer_rate,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms)::double precision AS p50_latency_ms,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms)::double precision AS p95_latency_ms,
       max(id)::bigint AS last_id
FROM retrieval_events
WHERE tenant_id = @tenant_id AND created_at > now() - interval '30 days'
GROUP BY strategy_id
ORDER BY last_id DESC
LIMIT 200;
