-- Conversation search and tracing. Every query filters by tenant_id. The
-- export's streaming query lives in store/pg/conversation_export.go (sqlc
-- collects every row of a :many query; an export must not) and repeats the
-- HAVING clause of SearchConversations, which a test holds equal.

-- name: SearchConversations :many
-- Sessions with messages in the range that match every filter, newest
-- first (ids are UUIDv7), with the counts of those messages. A filter holds
-- when one message of the session in the range satisfies it. Grouping in
-- session id order over chat_messages_session_idx lets a page stop early.
SELECT m.session_id,
       count(*)::bigint AS messages,
       count(*) FILTER (WHERE m.role = 'user')::bigint AS customer_messages,
       count(*) FILTER (WHERE m.role = 'assistant')::bigint AS replies,
       count(*) FILTER (WHERE m.should_transfer)::bigint AS handoffs,
       min(m.created_at)::timestamptz AS first_at,
       max(m.created_at)::timestamptz AS last_at
FROM chat_messages m
WHERE m.tenant_id = @tenant_id
  AND (NOT @since::boolean OR m.created_at >= @from_at::timestamptz)
  AND (NOT @until::boolean OR m.created_at < @to_at::timestamptz)
  AND (@before::text = '' OR m.session_id < @before)
  AND (@channel::text = '' OR EXISTS (
      SELECT 1 FROM chat_sessions s WHERE s.tenant_id = @tenant_id AND s.id = m.session_id AND s.channel = @channel))
GROUP BY m.session_id
HAVING (@transferred::text = '' OR bool_or(m.should_transfer) = (@transferred = 'true'))
   AND (@transfer_reason::text = '' OR bool_or(m.transfer_reason = @transfer_reason))
   AND (@rule_id::text = '' OR bool_or(m.monitoring ->> 'ruleId' = @rule_id))
   AND (@flow_id::text = '' OR bool_or(m.monitoring ->> 'flowId' = @flow_id OR m.flow ->> 'flowId' = @flow_id))
   AND (NOT @by_confidence::boolean OR bool_or(m.confidence BETWEEN @min_confidence::float8 AND @max_confidence::float8))
   AND (@text::text = '' OR bool_or(strpos(lower(m.content), lower(@text)) > 0))
ORDER BY m.session_id DESC
LIMIT @lim;

-- name: ListChatSessionsByID :many
SELECT * FROM chat_sessions WHERE tenant_id = @tenant_id AND id = ANY(@ids::text[]);

-- name: GetReplyByTrace :one
-- The newest reply of a trace id (a client may send several requests under
-- one traceparent).
SELECT * FROM chat_messages
WHERE tenant_id = @tenant_id AND trace_id = @trace_id AND trace_id <> '' AND role = 'assistant'
ORDER BY id DESC
LIMIT 1;

-- name: PreviousChatMessage :one
-- The message just before another one of its session.
SELECT * FROM chat_messages
WHERE tenant_id = @tenant_id AND session_id = @session_id AND id < @before
ORDER BY id DESC
LIMIT 1;

-- name: ListMessageToolTraces :many
-- A message's tool calls in the order made.
SELECT * FROM tool_traces
WHERE tenant_id = @tenant_id AND session_id = @session_id AND message_id = @message_id
ORDER BY id;
