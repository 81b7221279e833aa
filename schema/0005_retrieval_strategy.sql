-- Retrieval strategies per tenant, their audit, and retrieval events for
-- metrics and risk reports.

-- +goose Up
-- A tenant without a row uses the default strategy (from its settings).
CREATE TABLE retrieval_strategies (
    tenant_id  text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    config     jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE retrieval_strategy_audit (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    action      text NOT NULL CHECK (action IN ('switch', 'rollback')),
    key_id      text NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    from_config jsonb NOT NULL,
    to_config   jsonb NOT NULL,
    findings    jsonb NOT NULL DEFAULT '[]'
);

CREATE INDEX retrieval_strategy_audit_tenant_idx ON retrieval_strategy_audit (tenant_id, id DESC);

CREATE TABLE retrieval_events (
    id              bigserial PRIMARY KEY,
    tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    strategy_id     text NOT NULL,
    config          jsonb NOT NULL,
    hits            integer NOT NULL,
    top_score       double precision NOT NULL,
    evidence_tokens integer NOT NULL,
    insufficient    boolean NOT NULL,
    transferred     boolean NOT NULL,
    latency_ms      double precision NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX retrieval_events_tenant_idx ON retrieval_events (tenant_id, id DESC);

-- +goose Down
DROP TABLE retrieval_events;
DROP TABLE retrieval_strategy_audit;
DROP TABLE retrieval_strategies;
