-- Every query filters by tenant_id, except the timeout sweeper's scan
-- (ListDueFlows), which serves every tenant.

-- name: CreateChatSession :one
INSERT INTO chat_sessions (id, tenant_id, channel, customer_ref, slots)
VALUES (@id, @tenant_id, @channel, sqlc.narg(customer_ref), @slots)
RETURNING *;

-- name: GetChatSession :one
SELECT * FROM chat_sessions WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListChatSessions :many
SELECT * FROM chat_sessions
WHERE tenant_id = @tenant_id
  AND (sqlc.narg(channel)::text IS NULL OR channel = sqlc.narg(channel))
  AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: UpdateChatSessionSlots :one
UPDATE chat_sessions SET slots = @slots, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id
RETURNING *;

-- name: CountChatMessage :execrows
-- A customer's message joins the session.
UPDATE chat_sessions SET message_count = message_count + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id;

-- name: SaveChatSessionTurn :execrows
-- The session's state after a turn; added is the number of messages stored
-- with it (0 or 1).
UPDATE chat_sessions SET
    slots = @slots, summary = @summary, summarized_up_to = @summarized_up_to,
    flow_state = sqlc.narg(flow_state), flow_deadline = sqlc.narg(flow_deadline),
    message_count = message_count + @added::integer, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id;

-- name: SaveChatSessionFlowTimeout :execrows
-- SaveChatSessionTurn, only while the flow state is still the one the
-- sweeper read (compare-and-set; jsonb equality ignores formatting).
UPDATE chat_sessions SET
    slots = @slots, summary = @summary, summarized_up_to = @summarized_up_to,
    flow_state = sqlc.narg(flow_state), flow_deadline = sqlc.narg(flow_deadline),
    message_count = message_count + @added::integer, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id AND flow_state IS NOT DISTINCT FROM sqlc.narg(expected)::jsonb;

-- name: ListDueFlows :many
-- The sessions of any tenant whose waiting flow step timed out by now,
-- earliest first (the partial index on flow_deadline).
SELECT * FROM chat_sessions
WHERE flow_deadline IS NOT NULL AND flow_deadline <= @now::timestamptz
ORDER BY flow_deadline, id
LIMIT @lim;
