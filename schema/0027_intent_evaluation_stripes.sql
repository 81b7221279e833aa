-- Every reply counts its intent evaluation in its tenant's row of the
-- hour. With one row per tenant and hour, the replies of a tenant queued
-- on that row's lock, each until the one before had committed (with its
-- WAL flush): one tenant's replies were stored one at a time. The count is
-- now spread over eight stripes, a reply taking one at random, and reads
-- add them up.

-- +goose Up
ALTER TABLE intent_evaluations
    ADD COLUMN stripe smallint NOT NULL DEFAULT 0 CHECK (stripe BETWEEN 0 AND 7),
    DROP CONSTRAINT intent_evaluations_pkey,
    ADD PRIMARY KEY (tenant_id, hour, stripe);

-- +goose Down
CREATE TABLE intent_evaluations_merged AS
    SELECT tenant_id, hour, sum(evaluated)::bigint AS evaluated FROM intent_evaluations GROUP BY tenant_id, hour;
DELETE FROM intent_evaluations;
ALTER TABLE intent_evaluations
    DROP CONSTRAINT intent_evaluations_pkey,
    DROP COLUMN stripe,
    ADD PRIMARY KEY (tenant_id, hour);
INSERT INTO intent_evaluations (tenant_id, hour, evaluated) SELECT tenant_id, hour, evaluated FROM intent_evaluations_merged;
DROP TABLE intent_evaluations_merged;
