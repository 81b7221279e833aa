-- Every query filters by tenant_id: a session of another tenant has no
-- messages to show.

-- name: InsertChatMessage :exec
INSERT INTO chat_messages (id, tenant_id, session_id, role, content, thought, response_type, confidence,
    should_transfer, transfer_reason, sources, flow, trace_id, status, monitoring, created_at)
VALUES (@id, @tenant_id, @session_id, @role, @content, sqlc.narg(thought), sqlc.narg(response_type), sqlc.narg(confidence),
    @should_transfer, sqlc.narg(transfer_reason), @sources, sqlc.narg(flow), @trace_id, @status, sqlc.narg(monitoring),
    @created_at);

-- name: GetChatMessage :one
SELECT * FROM chat_messages WHERE tenant_id = @tenant_id AND session_id = @session_id AND id = @id;

-- name: ListChatMessages :many
-- Oldest first: ids are UUIDv7, so id order is time order.
SELECT * FROM chat_messages
WHERE tenant_id = @tenant_id AND session_id = @session_id AND (@after::text = '' OR id > @after)
ORDER BY id
LIMIT @lim;

-- name: RecentChatMessages :many
-- Newest first; the store turns them oldest first. Only what memory
-- recalls: the turns' text, not their sources or monitoring.
SELECT id, role, content, status, trace_id, created_at FROM chat_messages
WHERE tenant_id = @tenant_id AND session_id = @session_id
ORDER BY id DESC
LIMIT @lim;

-- name: OpenChatTurn :one
-- A customer's message joins its session in one statement: the session is
-- counted and returned, the message stored, and the newest @lim messages
-- before it read with it (the statement's snapshot does not see its own
-- insert). No row: the session is not the tenant's.
WITH s AS (
    UPDATE chat_sessions SET message_count = message_count + 1, updated_at = now()
    WHERE chat_sessions.tenant_id = @tenant_id AND chat_sessions.id = @session_id
    RETURNING *
), m AS (
    INSERT INTO chat_messages (id, tenant_id, session_id, role, content, should_transfer, sources, trace_id, status, created_at)
    SELECT @id, s.tenant_id, s.id, @role, @content, false, '[]', @trace_id, @status, @created_at FROM s
)
SELECT s.id, s.tenant_id, s.channel, s.customer_ref, s.slots, s.summary, s.summarized_up_to, s.flow_state,
    s.flow_deadline, s.message_count, s.created_at, s.updated_at, s.handoff_state, s.handoff_reason,
    s.handoff_language, s.handoff_requested_at, s.handoff_agent, s.handoff_notice,
    (SELECT COALESCE(jsonb_agg(jsonb_build_object('id', r.id, 'role', r.role, 'content', r.content, 'status', r.status,
            'traceId', r.trace_id, 'createdAt', r.created_at) ORDER BY r.id), '[]')
        FROM (SELECT id, role, content, status, trace_id, created_at FROM chat_messages
              WHERE chat_messages.tenant_id = @tenant_id AND chat_messages.session_id = @session_id
              ORDER BY id DESC LIMIT @lim) r)::jsonb AS recent
FROM s;
