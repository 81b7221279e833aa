-- Fair indexing (issue 24): workers took the oldest runnable job of a queue
-- every tenant shares, so one tenant whose provider hangs, or who uploads a
-- thousand files, held every worker while the others waited. The claim now
-- serves tenants in turn: among the tenants with a runnable job, the one
-- with the fewest jobs running, then the one served longest ago, passing
-- over a tenant at the operator's cap (ASSISTANT_INDEX_JOBS_PER_TENANT).
--
-- index_job_tenants remembers when a worker last took each tenant's job
-- (written by the claim; a tenant never served has no row and comes
-- first). The two partial indexes are the claim's: a tenant's unfinished
-- jobs in the order they come due, and its running jobs with their leases.
-- They replace the single order by due time across tenants.

-- +goose Up
CREATE TABLE index_job_tenants (
    tenant_id text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    served_at timestamptz NOT NULL
);

CREATE INDEX index_jobs_queue_idx ON index_jobs (tenant_id, run_after, id) WHERE state NOT IN ('succeeded', 'failed');
CREATE INDEX index_jobs_running_idx ON index_jobs (tenant_id, lease_until) WHERE state NOT IN ('queued', 'succeeded', 'failed');
DROP INDEX index_jobs_claim_idx;

-- +goose Down
CREATE INDEX index_jobs_claim_idx ON index_jobs (run_after) WHERE state NOT IN ('succeeded', 'failed');
DROP INDEX index_jobs_running_idx;
DROP INDEX index_jobs_queue_idx;
DROP TABLE index_job_tenants;
