-- Slot definitions: what each slot of a tenant's sessions may hold. Once a
-- tenant has any, session slots are checked against them (the service does
-- it; the session's slots stay a JSON object of strings).

-- +goose Up
CREATE TABLE slot_definitions (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key               text NOT NULL CHECK (key ~ '^[a-z][a-z0-9_]{0,63}$'),
    label             text NOT NULL DEFAULT '' CHECK (length(label) <= 200),
    type              text NOT NULL CHECK (type IN ('string', 'number', 'boolean', 'date', 'enum', 'string_array')),
    enum_values       text[] NOT NULL DEFAULT '{}',
    required          boolean NOT NULL DEFAULT false,
    -- An RE2 pattern the whole value must match; NULL for none.
    pattern           text CHECK (length(pattern) <= 500),
    prompt            text NOT NULL DEFAULT '' CHECK (length(prompt) <= 1000),
    -- The metadata field the value filters by. The service checks that it
    -- is the tenant's; deleting the field unlinks the slot.
    metadata_field_id text REFERENCES metadata_fields (id) ON DELETE SET NULL,
    status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deprecated')),
    description       text NOT NULL DEFAULT '' CHECK (length(description) <= 2000),
    version           integer NOT NULL DEFAULT 1,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, key)
);

-- +goose Down
DROP TABLE slot_definitions;
