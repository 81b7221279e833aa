-- Intent rules, the hits they score and how many messages the intent stage
-- evaluated (the denominator of a rule's hit rate).

-- +goose Up
CREATE TABLE intent_rules (
    id              text PRIMARY KEY,
    tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name            text NOT NULL,
    keywords        text[] NOT NULL DEFAULT '{}',
    keyword_mode    text NOT NULL CHECK (keyword_mode IN ('any', 'all')),
    patterns        text[] NOT NULL DEFAULT '{}',
    priority        integer NOT NULL DEFAULT 0,
    response_type   text NOT NULL CHECK (response_type IN ('fixed', 'rag', 'flow', 'transfer')),
    fixed_text      text NOT NULL DEFAULT '',
    kb_ids          text[] NOT NULL DEFAULT '{}',
    flow_id         text NOT NULL DEFAULT '',
    transfer_reason text NOT NULL DEFAULT '',
    enabled         boolean NOT NULL DEFAULT true,
    version         integer NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, name),
    -- The target of the hits' foreign key, which keeps hits in their rule's tenant.
    UNIQUE (tenant_id, id)
);

-- One row per message an intent rule decided. The session and message are
-- the dialogue's ids, not foreign keys: monitoring outlives neither.
CREATE TABLE intent_hits (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id  text NOT NULL,
    rule_id    text NOT NULL,
    session_id text NOT NULL DEFAULT '',
    message_id text NOT NULL DEFAULT '',
    keywords   text[] NOT NULL DEFAULT '{}',
    patterns   text[] NOT NULL DEFAULT '{}',
    at         timestamptz NOT NULL,
    FOREIGN KEY (tenant_id, rule_id) REFERENCES intent_rules (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX intent_hits_by_rule ON intent_hits (tenant_id, rule_id, at DESC, id DESC);

-- Messages evaluated by the intent stage, counted per tenant and hour: one
-- upserted row per hour instead of one row per message. hour is the start
-- of a UTC hour (the store truncates it).
CREATE TABLE intent_evaluations (
    tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    hour      timestamptz NOT NULL,
    evaluated bigint NOT NULL CHECK (evaluated >= 0),
    PRIMARY KEY (tenant_id, hour)
);

-- +goose Down
DROP TABLE intent_evaluations;
DROP TABLE intent_hits;
DROP TABLE intent_rules;
