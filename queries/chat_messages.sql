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
