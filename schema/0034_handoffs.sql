-- A conversation handed to a person is a state of its session: bot →
-- waiting_for_agent → with_agent → bot (released) or resolved. While a
-- person has it the bot does not answer; the customer's messages are stored
-- as always and agents reply as role 'agent'. Every step is a row of
-- handoff_events (who and when), internal notes among them.

-- +goose Up
ALTER TABLE chat_sessions
    ADD COLUMN handoff_state text NOT NULL DEFAULT 'bot'
        CHECK (handoff_state IN ('bot', 'waiting_for_agent', 'with_agent', 'resolved')),
    -- Why and in which language the customer was handed over, and when.
    ADD COLUMN handoff_reason text,
    ADD COLUMN handoff_language text,
    ADD COLUMN handoff_requested_at timestamptz,
    -- The agent who claimed it; NULL unless with_agent.
    ADD COLUMN handoff_agent text,
    -- What the customer was told while waiting: '' nothing yet, 'waiting'
    -- the waiting text, 'fallback' the text after the wait ran out.
    ADD COLUMN handoff_notice text NOT NULL DEFAULT ''
        CHECK (handoff_notice IN ('', 'waiting', 'fallback'));

-- The agents' queue: waiting sessions of a tenant, oldest first.
CREATE INDEX chat_sessions_handoff_queue_idx ON chat_sessions (tenant_id, handoff_requested_at, id)
    WHERE handoff_state IN ('waiting_for_agent', 'with_agent');

ALTER TABLE chat_messages
    DROP CONSTRAINT chat_messages_role_check,
    ADD CONSTRAINT chat_messages_role_check CHECK (role IN ('user', 'assistant', 'agent'));

CREATE TABLE handoff_events (
    id         text PRIMARY KEY,
    tenant_id  text NOT NULL,
    session_id text NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('requested', 'claimed', 'replied', 'note', 'released', 'resolved')),
    -- 'bot' for a request the dialogue made, else the agent's id.
    actor      text NOT NULL,
    -- The API key that acted (NULL for the bot's own request).
    key_id     text,
    -- requested: the reason; resolved: the outcome; note: its text;
    -- replied: the message id.
    detail     text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, session_id) REFERENCES chat_sessions (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX handoff_events_session_idx ON handoff_events (tenant_id, session_id, id);

-- +goose Down
DROP TABLE handoff_events;
DELETE FROM chat_messages WHERE role = 'agent';
ALTER TABLE chat_messages
    DROP CONSTRAINT chat_messages_role_check,
    ADD CONSTRAINT chat_messages_role_check CHECK (role IN ('user', 'assistant'));
DROP INDEX chat_sessions_handoff_queue_idx;
ALTER TABLE chat_sessions
    DROP COLUMN handoff_state, DROP COLUMN handoff_reason, DROP COLUMN handoff_language,
    DROP COLUMN handoff_requested_at, DROP COLUMN handoff_agent, DROP COLUMN handoff_notice;
