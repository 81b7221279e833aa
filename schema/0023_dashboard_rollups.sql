-- The dashboard's hourly roll-ups: the figures of each UTC hour of a
-- tenant, added up by a periodic job from the messages and monitoring
-- records older than a few minutes, so that a range of days reads rows per
-- hour instead of every message. What came after a tenant's mark is read
-- live.

-- +goose Up
-- One figure of one hour: metric names what is counted (customer_messages,
-- replies, handoffs, confidence, latency, tokens_in, tokens_out,
-- unanswered, intent_hits, guard, sessions), key what it is counted by
-- (a response type, a reason, a bucket, a model, a rule...; '' for none),
-- n the count and total the sum of the values counted (confidence,
-- milliseconds, tokens; 0 for plain counts). An hour's row grows while the
-- hour is rolled up a few minutes at a time: counts and sums only add.
-- Keyed by metric first: a read takes the metrics it shows, a range of
-- hours each.
CREATE TABLE dashboard_rollups (
    tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    hour      timestamptz NOT NULL,
    metric    text NOT NULL,
    key       text NOT NULL,
    n         bigint NOT NULL CHECK (n >= 0),
    total     double precision NOT NULL,
    PRIMARY KEY (tenant_id, metric, hour, key)
);

-- Each tenant's roll-up mark: every record before rolled_up_to is rolled
-- up, none after it. The row is locked while a roll-up runs, so replicas
-- never count a record twice.
CREATE TABLE dashboard_rollup_marks (
    tenant_id    text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    rolled_up_to timestamptz
);

-- +goose Down
DROP TABLE dashboard_rollup_marks;
DROP TABLE dashboard_rollups;
