-- Retention: how long each tenant's monitoring records (intent hits and
-- evaluations, flow events, prompt renders, guard hits, retrieval events,
-- reply events) and chat messages are kept. The background purge deletes
-- what is older, tenant by tenant, in small batches; the indexes below let
-- each batch find its oldest rows of one tenant without a scan.

-- +goose Up
ALTER TABLE tenant_settings
    ADD COLUMN monitoring_retention_days integer NOT NULL DEFAULT 90
        CHECK (monitoring_retention_days BETWEEN 1 AND 3650),
    -- NULL: messages are kept.
    ADD COLUMN message_retention_days integer
        CHECK (message_retention_days BETWEEN 1 AND 3650);

CREATE INDEX intent_hits_tenant_at ON intent_hits (tenant_id, at);
CREATE INDEX retrieval_events_tenant_created ON retrieval_events (tenant_id, created_at);
CREATE INDEX chat_messages_tenant_created ON chat_messages (tenant_id, created_at);
CREATE INDEX chat_sessions_tenant_updated ON chat_sessions (tenant_id, updated_at);

-- +goose Down
DROP INDEX chat_sessions_tenant_updated;
DROP INDEX chat_messages_tenant_created;
DROP INDEX retrieval_events_tenant_created;
DROP INDEX intent_hits_tenant_at;
ALTER TABLE tenant_settings DROP COLUMN message_retention_days, DROP COLUMN monitoring_retention_days;
