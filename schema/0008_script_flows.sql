-- Script flows: a tenant's scripted procedures, and the events of their
-- instances that the dialogue records for monitoring.

-- +goose Up
CREATE TABLE script_flows (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    enabled     boolean NOT NULL DEFAULT true,
    -- The steps as validated by the flow engine, in the engine-independent
    -- JSON of store/pg/script_flow_json.go (an array of step objects).
    steps       jsonb NOT NULL CHECK (jsonb_typeof(steps) = 'array'),
    version     integer NOT NULL DEFAULT 1,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX script_flows_tenant ON script_flows (tenant_id, id);

-- One row per event of a flow instance. No foreign key to script_flows: a
-- deleted flow keeps its history. id orders the events of one instance
-- that share a timestamp (a start and the steps it ran through).
CREATE TABLE flow_events (
    id         bigserial PRIMARY KEY,
    tenant_id  text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    flow_id    text NOT NULL,
    session_id text NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('started', 'step', 'completed', 'timed_out', 'transferred', 'invalid_input', 'dropped')),
    step_no    integer NOT NULL DEFAULT 0,
    timed_out  boolean NOT NULL DEFAULT false,
    at         timestamptz NOT NULL
);
CREATE INDEX flow_events_tenant_at ON flow_events (tenant_id, at);

-- +goose Down
DROP TABLE flow_events;
DROP TABLE script_flows;
