-- Every query filters by tenant_id.

-- name: InsertToolTrace :exec
INSERT INTO tool_traces (id, tenant_id, session_id, message_id, tool, input, output, latency_us, error, created_at)
VALUES (@id, @tenant_id, @session_id, @message_id, @tool, @input, @output, @latency_us, @error, @created_at);

-- name: ListToolTraces :many
-- Newest first.
SELECT * FROM tool_traces
WHERE tenant_id = @tenant_id AND session_id = @session_id AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;
