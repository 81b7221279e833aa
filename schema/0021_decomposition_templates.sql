-- Decomposition templates: versioned instructions and targets (slots and
-- metadata fields) to extract from a customer message, with the tenant's
-- active template. Shaped like the prompt templates (0009): immutable
-- versions, a published version per template, one active template.

-- +goose Up
CREATE TABLE decomposition_templates (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name              text NOT NULL,
    description       text NOT NULL DEFAULT '',
    latest_version    integer NOT NULL DEFAULT 1,
    -- NULL until a version is published.
    published_version integer,
    version           integer NOT NULL DEFAULT 1,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, name),
    -- Target of the tenant-safe foreign keys below.
    UNIQUE (tenant_id, id)
);

CREATE INDEX decomposition_templates_list_idx ON decomposition_templates (tenant_id, id DESC);

-- Versions are immutable; rollback only moves published_version.
CREATE TABLE decomposition_template_versions (
    tenant_id         text NOT NULL,
    template_id       text NOT NULL,
    version           integer NOT NULL CHECK (version >= 1),
    instruction       text NOT NULL,
    -- [{kind, key, description, examples}]
    targets           jsonb NOT NULL DEFAULT '[]',
    created_at        timestamptz NOT NULL DEFAULT now(),
    last_published_at timestamptz,
    PRIMARY KEY (tenant_id, template_id, version),
    FOREIGN KEY (tenant_id, template_id) REFERENCES decomposition_templates (tenant_id, id) ON DELETE CASCADE
);

-- The tenant's active template; deleting the template deletes the row, and
-- messages are no longer decomposed.
CREATE TABLE decomposition_active (
    tenant_id   text PRIMARY KEY,
    template_id text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (tenant_id, template_id) REFERENCES decomposition_templates (tenant_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE decomposition_active;
DROP TABLE decomposition_template_versions;
DROP TABLE decomposition_templates;
