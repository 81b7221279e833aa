-- The request that queued an index job (its X-Request-Id), so the worker's
-- log lines of the job can be joined to the upload or re-index that asked
-- for it. NULL for jobs queued before this column existed.

-- +goose Up
ALTER TABLE index_jobs ADD COLUMN request_id text;

-- +goose Down
ALTER TABLE index_jobs DROP COLUMN request_id;
