-- The hand-off of a session to a person. Every state change is
-- conditional on the state it leaves (so two agents cannot both claim) and
-- records its step in handoff_events in the same statement.

-- name: RequestHandoff :execrows
-- bot (or resolved) → waiting_for_agent; nothing when a person already has
-- the session or it waits.
WITH s AS (
    UPDATE chat_sessions SET handoff_state = 'waiting_for_agent', handoff_reason = @reason,
        handoff_language = @language, handoff_requested_at = @at, handoff_agent = NULL, handoff_notice = ''
    WHERE chat_sessions.tenant_id = @tenant_id AND chat_sessions.id = @id AND handoff_state IN ('bot', 'resolved')
    RETURNING tenant_id, id
)
INSERT INTO handoff_events (id, tenant_id, session_id, kind, actor, detail, created_at)
SELECT @event_id, s.tenant_id, s.id, 'requested', 'bot', @reason, @at FROM s;

-- name: SetHandoffNotice :exec
-- What the waiting customer has been told.
UPDATE chat_sessions SET handoff_notice = @notice
WHERE tenant_id = @tenant_id AND id = @id AND handoff_state IN ('waiting_for_agent', 'with_agent');

-- name: MoveHandoff :one
-- One agent step that changes the state: from the state it requires (and,
-- when agent_required, only by the agent who holds the session) to the
-- next. No row: the session is not in that state (or another agent has it).
WITH s AS (
    UPDATE chat_sessions SET handoff_state = @to_state,
        handoff_agent = sqlc.narg(new_agent), updated_at = now()
    WHERE chat_sessions.tenant_id = @tenant_id AND chat_sessions.id = @id AND handoff_state = @from_state
      AND (NOT @agent_required::boolean OR handoff_agent = @agent)
    RETURNING *
), e AS (
    INSERT INTO handoff_events (id, tenant_id, session_id, kind, actor, key_id, detail, created_at)
    SELECT @event_id, s.tenant_id, s.id, @kind, @agent, sqlc.narg(key_id), @detail, @at FROM s
)
SELECT * FROM s;

-- name: InsertHandoffEvent :exec
INSERT INTO handoff_events (id, tenant_id, session_id, kind, actor, key_id, detail, created_at)
VALUES (@id, @tenant_id, @session_id, @kind, @actor, sqlc.narg(key_id), @detail, @created_at);

-- name: ListHandoffQueue :many
-- A tenant's sessions in one hand-off state, oldest request first; the
-- cursor is the last item's (requested_at, id).
SELECT * FROM chat_sessions
WHERE tenant_id = @tenant_id AND handoff_state = @state
  AND (NOT @paged::boolean OR (handoff_requested_at, id) > (@after_at::timestamptz, @after_id::text))
ORDER BY handoff_requested_at, id
LIMIT @lim;

-- name: ListHandoffEvents :many
-- A session's hand-off steps, oldest first.
SELECT * FROM handoff_events
WHERE tenant_id = @tenant_id AND session_id = @session_id AND id > @after
ORDER BY id
LIMIT @lim;

-- name: LockHandoffSession :one
-- The session, locked for an agent's reply: the check that the agent has
-- it holds until the reply is stored.
SELECT * FROM chat_sessions WHERE tenant_id = @tenant_id AND id = @id FOR UPDATE;

-- name: NotifySessionMessage :exec
-- Tells every replica a message joined a session outside a turn (an
-- agent's reply), for the session's event stream.
SELECT pg_notify('assistant_session_message', @payload::text);

-- name: UpdateHandoffTexts :exec
-- The tenant's waiting and fallback texts and wait, written with (in the
-- transaction of) the settings update that checked the version.
UPDATE tenant_settings SET handoff_waiting_en = sqlc.narg(waiting_en), handoff_waiting_zh = sqlc.narg(waiting_zh),
    handoff_fallback_en = sqlc.narg(fallback_en), handoff_fallback_zh = sqlc.narg(fallback_zh),
    handoff_wait_seconds = sqlc.narg(wait_seconds)
WHERE tenant_id = @tenant_id;
