-- Guardrails: a tenant's forbidden words, behaviour rules and settings
-- (safe text, own high-risk lists), and the hits the dialogue records.

-- +goose Up
CREATE TABLE guard_forbidden_words (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    word        text NOT NULL CHECK (btrim(word) <> ''),
    match_mode  text NOT NULL CHECK (match_mode IN ('exact', 'contains')),
    action      text NOT NULL CHECK (action IN ('mask', 'block', 'transfer')),
    replacement text NOT NULL DEFAULT '',
    version     integer NOT NULL DEFAULT 1,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
-- One entry per word, whatever its case.
CREATE UNIQUE INDEX guard_forbidden_words_word ON guard_forbidden_words (tenant_id, lower(word));

CREATE TABLE guard_behavior_rules (
    id         text PRIMARY KEY,
    tenant_id  text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name       text NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('contains', 'regex', 'high_risk')),
    pattern    text NOT NULL DEFAULT '',
    category   text NOT NULL DEFAULT '',
    action     text NOT NULL CHECK (action IN ('replace', 'append', 'transfer')),
    text       text NOT NULL DEFAULT '',
    enabled    boolean NOT NULL DEFAULT true,
    position   integer NOT NULL CHECK (position >= 0),
    version    integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- Rules apply (and are listed) in this order.
CREATE INDEX guard_behavior_rules_order ON guard_behavior_rules (tenant_id, position, id);

CREATE TABLE guard_settings (
    tenant_id              text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    safe_text              text NOT NULL DEFAULT '',
    skip_default_high_risk boolean NOT NULL DEFAULT false,
    -- [{"category": ..., "keywords": [...], "patterns": [...]}]
    high_risk              jsonb NOT NULL DEFAULT '[]',
    version                integer NOT NULL DEFAULT 1,
    updated_at             timestamptz NOT NULL DEFAULT now()
);

-- One row per guardrail hit on a message (domain.GuardHit); no foreign key
-- to the word or rule, so the counts outlive them.
CREATE TABLE guard_hits (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id  text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    session_id text NOT NULL DEFAULT '',
    message_id text NOT NULL DEFAULT '',
    stage      text NOT NULL CHECK (stage IN ('input', 'output')),
    kind       text NOT NULL CHECK (kind IN ('word', 'rule', 'high_risk')),
    ref_id     text NOT NULL DEFAULT '',
    category   text NOT NULL DEFAULT '',
    pattern    text NOT NULL DEFAULT '',
    action     text NOT NULL DEFAULT '',
    at         timestamptz NOT NULL
);
CREATE INDEX guard_hits_tenant_at ON guard_hits (tenant_id, at);

-- +goose Down
DROP TABLE guard_hits;
DROP TABLE guard_settings;
DROP TABLE guard_behavior_rules;
DROP TABLE guard_forbidden_words;
