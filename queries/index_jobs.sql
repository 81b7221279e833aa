-- Every query filters by tenant_id, except the worker's claim and lease
-- queries, which choose among every tenant's jobs or act on job ids a
-- worker already holds, and the queue statistics of the metrics, which
-- count all tenants' jobs.

-- name: CreateIndexJob :one
INSERT INTO index_jobs (id, tenant_id, kb_id, document_id, request_id)
VALUES (@id, @tenant_id, @kb_id, @document_id, sqlc.narg(request_id))
RETURNING *;

-- name: GetIndexJob :one
SELECT * FROM index_jobs WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListIndexJobs :many
SELECT * FROM index_jobs
WHERE tenant_id = @tenant_id
  AND (sqlc.narg(state)::text IS NULL OR state = sqlc.narg(state))
  AND (sqlc.narg(document_id)::text IS NULL OR document_id = sqlc.narg(document_id))
  AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: IndexJobsByIDs :many
SELECT * FROM index_jobs WHERE tenant_id = @tenant_id AND id = ANY(@ids::text[]);

-- name: CountActiveDocumentJobs :one
SELECT count(*) FROM index_jobs
WHERE tenant_id = @tenant_id AND document_id = @document_id AND state NOT IN ('succeeded', 'failed');

-- name: IndexJobTenantsToServe :many
-- The tenants with a runnable job (queued and due, or running with an
-- expired lease: its worker died), in the order the claim serves them:
-- fewest jobs running first (live leases, every replica's), then the one
-- served longest ago (never served: first), then the one whose job has
-- waited longest. Tenants already running @per_tenant jobs are left out
-- (0: no cap). The counts are this statement's snapshot, a hint:
-- ClaimTenantIndexJob checks the cap again under the tenant's lock.
--
-- pending skips from tenant to tenant through the queue index (a loose
-- index scan), and each tenant's figures are index probes: the cost grows
-- with the tenants that have unfinished jobs, not with their jobs.
WITH RECURSIVE pending AS (
    (SELECT j.tenant_id FROM index_jobs j
     WHERE j.state NOT IN ('succeeded', 'failed')
     ORDER BY j.tenant_id LIMIT 1)
    UNION ALL
    SELECT (SELECT j.tenant_id FROM index_jobs j
            WHERE j.state NOT IN ('succeeded', 'failed') AND j.tenant_id > p.tenant_id
            ORDER BY j.tenant_id LIMIT 1)
    FROM pending p WHERE p.tenant_id IS NOT NULL
), due AS MATERIALIZED (
    SELECT p.tenant_id,
        least(
            (SELECT min(j.run_after) FROM index_jobs j
             WHERE j.tenant_id = p.tenant_id AND j.state NOT IN ('succeeded', 'failed')
               AND j.state = 'queued' AND j.run_after <= now()),
            (SELECT min(j.run_after) FROM index_jobs j
             WHERE j.tenant_id = p.tenant_id AND j.state NOT IN ('queued', 'succeeded', 'failed') AND j.lease_until < now())
        ) AS oldest,
        (SELECT count(*) FROM index_jobs r
         WHERE r.tenant_id = p.tenant_id AND r.state NOT IN ('queued', 'succeeded', 'failed') AND r.lease_until >= now()) AS running
    FROM pending p WHERE p.tenant_id IS NOT NULL
)
SELECT due.tenant_id::text AS tenant_id
FROM due
LEFT JOIN index_job_tenants t ON t.tenant_id = due.tenant_id
WHERE due.oldest IS NOT NULL AND (@per_tenant::int = 0 OR due.running < @per_tenant::int)
ORDER BY due.running, t.served_at NULLS FIRST, due.oldest, due.tenant_id
LIMIT @lim;

-- name: LockIndexJobTenant :exec
-- Holds the claim of one tenant's jobs until the transaction ends: claims
-- of one tenant take turns, so that its cap holds across workers and
-- replicas. Claims of different tenants run side by side.
SELECT pg_advisory_xact_lock(hashtextextended('index_jobs:' || @tenant_id::text, 0));

-- name: TryLockIndexJobTenant :one
-- LockIndexJobTenant without waiting: false when another claim holds the
-- tenant (SKIP LOCKED, for tenants).
SELECT pg_try_advisory_xact_lock(hashtextextended('index_jobs:' || @tenant_id::text, 0)) AS locked;

-- name: ClaimTenantIndexJob :one
-- The tenant's oldest runnable job, leased to @owner, unless the tenant
-- runs @per_tenant jobs already (0: no cap); the tenant is recorded as
-- served. Run under the tenant's lock in a statement begun after it was
-- taken, the count sees every other claim of the tenant. SKIP LOCKED
-- passes over a job another transaction holds (a deletion, a renewal).
WITH claimed AS (
    UPDATE index_jobs SET
        state = CASE WHEN state = 'queued' THEN 'parsing' ELSE state END,
        attempts = attempts + 1,
        lease_owner = @owner,
        lease_until = now() + make_interval(secs => @lease_seconds::double precision),
        started_at = coalesce(started_at, now()),
        updated_at = now()
    WHERE id = (
        SELECT j.id FROM index_jobs j
        WHERE j.tenant_id = @tenant_id
          AND ((j.state = 'queued' AND j.run_after <= now())
            OR (j.state NOT IN ('queued', 'succeeded', 'failed') AND j.lease_until < now()))
          AND (@per_tenant::int = 0 OR (
              SELECT count(*) FROM index_jobs r
              WHERE r.tenant_id = @tenant_id AND r.state NOT IN ('queued', 'succeeded', 'failed') AND r.lease_until >= now()
          ) < @per_tenant::int)
        ORDER BY j.run_after, j.id
        FOR UPDATE SKIP LOCKED
        LIMIT 1
    )
    RETURNING *
), served AS (
    INSERT INTO index_job_tenants (tenant_id, served_at)
    SELECT claimed.tenant_id, now() FROM claimed
    ON CONFLICT (tenant_id) DO UPDATE SET served_at = excluded.served_at
)
SELECT * FROM claimed;

-- name: RenewIndexJobLeases :exec
UPDATE index_jobs SET lease_until = now() + make_interval(secs => @lease_seconds::double precision)
WHERE lease_owner = @owner AND id = ANY(@ids::text[]) AND state NOT IN ('queued', 'succeeded', 'failed');

-- name: SetIndexJobStage :execrows
UPDATE index_jobs SET state = @state, progress_done = @done, progress_total = @total, updated_at = now()
WHERE id = @id AND lease_owner = @owner AND state NOT IN ('queued', 'succeeded', 'failed');

-- name: FinishIndexJob :execrows
UPDATE index_jobs SET state = @state, reason = sqlc.narg(reason), detail = sqlc.narg(detail),
    lease_owner = NULL, lease_until = NULL, finished_at = now(), updated_at = now(),
    progress_done = CASE WHEN @state = 'succeeded' THEN progress_total ELSE progress_done END
WHERE id = @id AND lease_owner = @owner AND state NOT IN ('queued', 'succeeded', 'failed');

-- name: RequeueIndexJob :execrows
UPDATE index_jobs SET state = 'queued', reason = @reason, detail = @detail,
    lease_owner = NULL, lease_until = NULL, updated_at = now(),
    run_after = now() + make_interval(secs => @after_seconds::double precision)
WHERE id = @id AND lease_owner = @owner AND state NOT IN ('queued', 'succeeded', 'failed');

-- name: IndexJobQueueStats :one
-- The queue across all tenants, for the service's metrics: jobs waiting,
-- jobs running, and how long ago the oldest waiting one was queued (0 when
-- none waits). The partial queue index holds exactly the unfinished jobs.
SELECT count(*) FILTER (WHERE state = 'queued')::bigint AS queued,
       count(*) FILTER (WHERE state <> 'queued')::bigint AS running,
       coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE state = 'queued')), 0)::float8 AS oldest_queued_seconds
FROM index_jobs
WHERE state NOT IN ('succeeded', 'failed');
