-- Every query filters by tenant_id, except the worker's claim and lease
-- queries, which act on job ids a worker already holds, and the queue
-- statistics of the metrics, which count all tenants' jobs.

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

-- name: ClaimIndexJob :one
-- The oldest runnable job: queued and due, or running with an expired lease
-- (its worker died). SKIP LOCKED lets many workers claim concurrently.
UPDATE index_jobs SET
    state = CASE WHEN state = 'queued' THEN 'parsing' ELSE state END,
    attempts = attempts + 1,
    lease_owner = @owner,
    lease_until = now() + make_interval(secs => @lease_seconds::double precision),
    started_at = coalesce(started_at, now()),
    updated_at = now()
WHERE id = (
    SELECT j.id FROM index_jobs j
    WHERE (j.state = 'queued' AND j.run_after <= now())
       OR (j.state NOT IN ('queued', 'succeeded', 'failed') AND j.lease_until < now())
    ORDER BY j.run_after, j.id
    FOR UPDATE SKIP LOCKED
    LIMIT 1
)
RETURNING *;

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
-- none waits). The partial claim index holds exactly the unfinished jobs.
SELECT count(*) FILTER (WHERE state = 'queued')::bigint AS queued,
       count(*) FILTER (WHERE state <> 'queued')::bigint AS running,
       coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE state = 'queued')), 0)::float8 AS oldest_queued_seconds
FROM index_jobs
WHERE state NOT IN ('succeeded', 'failed');
