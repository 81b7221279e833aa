-- Chat sessions and what they keep: messages (with the monitoring of each
-- reply), tool traces, and the events of streamed replies for resumption.

-- +goose Up
CREATE TABLE chat_sessions (
    id               text PRIMARY KEY,
    tenant_id        text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    channel          text NOT NULL,
    customer_ref     text,
    slots            jsonb NOT NULL DEFAULT '{}',
    -- The rolling summary of the turns older than the recalled ones, and
    -- the id of the newest message it covers ('' when none).
    summary          text NOT NULL DEFAULT '',
    summarized_up_to text NOT NULL DEFAULT '',
    -- The running flow instance as the flow engine encodes it; NULL when
    -- none runs. A fired timeout is stored only while flow_state still
    -- equals what the sweeper read (jsonb equality: the state carries its
    -- own change time, so an equal state is the same state).
    flow_state       jsonb,
    -- When the flow's waiting step times out; NULL when it does not.
    flow_deadline    timestamptz,
    message_count    integer NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- Target of tenant-safe foreign keys.
    CONSTRAINT chat_sessions_tenant_id_id_key UNIQUE (tenant_id, id)
);

CREATE INDEX chat_sessions_tenant_idx ON chat_sessions (tenant_id, id DESC);
-- The timeout sweeper's scan: only sessions whose flow waits with a deadline.
CREATE INDEX chat_sessions_flow_deadline_idx ON chat_sessions (flow_deadline) WHERE flow_deadline IS NOT NULL;

CREATE TABLE chat_messages (
    id              text PRIMARY KEY,
    tenant_id       text NOT NULL,
    session_id      text NOT NULL,
    role            text NOT NULL CHECK (role IN ('user', 'assistant')),
    content         text NOT NULL,
    thought         text,
    response_type   text CHECK (response_type IN ('fixed', 'rag', 'flow', 'transfer')),
    confidence      double precision,
    should_transfer boolean NOT NULL DEFAULT false,
    transfer_reason text,
    sources         jsonb NOT NULL DEFAULT '[]',
    flow            jsonb,
    trace_id        text NOT NULL DEFAULT '',
    status          text NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'interrupted')),
    -- Stage timings, rule, flow, template, guard hits, tokens, model,
    -- retries: admin-only facts, read whole with the message.
    monitoring      jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT chat_messages_tenant_id_id_key UNIQUE (tenant_id, id),
    FOREIGN KEY (tenant_id, session_id) REFERENCES chat_sessions (tenant_id, id) ON DELETE CASCADE
);

-- Ids are UUIDv7, so id order is time order: oldest first is an index scan.
CREATE INDEX chat_messages_session_idx ON chat_messages (tenant_id, session_id, id);

CREATE TABLE tool_traces (
    id         text PRIMARY KEY,
    tenant_id  text NOT NULL,
    session_id text NOT NULL,
    message_id text NOT NULL,
    tool       text NOT NULL,
    input      jsonb NOT NULL DEFAULT '{}',
    output     text NOT NULL DEFAULT '',
    latency_us bigint NOT NULL DEFAULT 0,
    error      text,
    created_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, session_id) REFERENCES chat_sessions (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, message_id) REFERENCES chat_messages (tenant_id, id) ON DELETE CASCADE
);

CREATE INDEX tool_traces_session_idx ON tool_traces (tenant_id, session_id, id DESC);

-- The server-sent events of a streamed reply, kept for a while so that a
-- client reconnecting with Last-Event-ID (<messageId>:<seq>) gets the rest.
-- data is the event's JSON object as sent, byte for byte.
CREATE TABLE reply_events (
    tenant_id  text NOT NULL,
    session_id text NOT NULL,
    message_id text NOT NULL,
    seq        integer NOT NULL CHECK (seq >= 0),
    event      text NOT NULL CHECK (event IN ('meta', 'thought', 'delta', 'sources', 'done', 'error')),
    data       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, message_id, seq),
    FOREIGN KEY (tenant_id, message_id) REFERENCES chat_messages (tenant_id, id) ON DELETE CASCADE
);

-- The purge deletes by age, across tenants.
CREATE INDEX reply_events_created_idx ON reply_events (created_at);

-- +goose Down
DROP TABLE reply_events;
DROP TABLE tool_traces;
DROP TABLE chat_messages;
DROP TABLE chat_sessions;
