-- What the conversation search and tracing read by: a reply by its trace
-- id, and sessions by when they started (the dashboard counts them so).
-- Messages by (tenant_id, created_at) come from 0026's
-- chat_messages_tenant_created.

-- +goose Up
-- Only replies carry a trace id; customer messages ('') stay out.
CREATE INDEX chat_messages_trace_idx ON chat_messages (tenant_id, trace_id) WHERE trace_id <> '';
CREATE INDEX chat_sessions_tenant_created_idx ON chat_sessions (tenant_id, created_at);

-- +goose Down
DROP INDEX chat_sessions_tenant_created_idx;
DROP INDEX chat_messages_trace_idx;
