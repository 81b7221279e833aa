-- Metadata governance: the tenant's metadata field definitions.

-- +goose Up
CREATE TABLE metadata_fields (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key         text NOT NULL CHECK (key ~ '^[a-z][a-z0-9_]{0,63}$'),
    label       text NOT NULL DEFAULT '',
    type        text NOT NULL CHECK (type IN ('string', 'number', 'boolean', 'date', 'enum', 'string_array')),
    required    boolean NOT NULL DEFAULT false,
    enum_values text[] NOT NULL DEFAULT '{}',
    scope       text NOT NULL CHECK (scope IN ('document', 'chunk', 'slot', 'session')),
    role        text NOT NULL CHECK (role IN ('filter', 'display', 'routing')),
    status      text NOT NULL CHECK (status IN ('draft', 'active', 'deprecated', 'archived')),
    description text NOT NULL DEFAULT '',
    version     integer NOT NULL DEFAULT 1,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, scope, key)
);

-- +goose Down
DROP TABLE metadata_fields;
