-- Prompt templates: versioned system instructions, the active template of
-- each scene per tenant, render records for monitoring, and the tenant's
-- time zone that the current_time variable is shown in.

-- +goose Up
ALTER TABLE tenant_settings ADD COLUMN timezone text NOT NULL DEFAULT 'UTC' CHECK (length(timezone) <= 64);

CREATE TABLE prompt_templates (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name              text NOT NULL,
    description       text NOT NULL DEFAULT '',
    scene             text NOT NULL CHECK (scene IN ('chat', 'rag_lab', 'summary')),
    latest_version    integer NOT NULL DEFAULT 1,
    -- NULL until a version is published.
    published_version integer,
    version           integer NOT NULL DEFAULT 1,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, name),
    -- Target of the tenant-safe foreign keys below.
    UNIQUE (tenant_id, id),
    UNIQUE (tenant_id, scene, id)
);

CREATE INDEX prompt_templates_list_idx ON prompt_templates (tenant_id, id DESC);

-- Versions are immutable; rollback only moves published_version.
CREATE TABLE prompt_template_versions (
    tenant_id          text NOT NULL,
    template_id        text NOT NULL,
    version            integer NOT NULL CHECK (version >= 1),
    system_instruction text NOT NULL,
    -- [{name, kind, default, required, description}]
    variables          jsonb NOT NULL DEFAULT '[]',
    created_at         timestamptz NOT NULL DEFAULT now(),
    last_published_at  timestamptz,
    PRIMARY KEY (tenant_id, template_id, version),
    FOREIGN KEY (tenant_id, template_id) REFERENCES prompt_templates (tenant_id, id) ON DELETE CASCADE
);

-- The active template of each scene. Deleting the template deletes the
-- row, and the scene returns to the built-in instruction. The key
-- includes the scene so that a template can only be active for its own.
CREATE TABLE prompt_scenes (
    tenant_id   text NOT NULL,
    scene       text NOT NULL,
    template_id text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, scene),
    FOREIGN KEY (tenant_id, scene, template_id) REFERENCES prompt_templates (tenant_id, scene, id) ON DELETE CASCADE
);

-- One row per rendering by the message pipeline. No foreign key to the
-- template: the records outlive it. template_id '' is the built-in
-- instruction.
CREATE TABLE prompt_renders (
    tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    template_id text NOT NULL,
    version     integer NOT NULL,
    scene       text NOT NULL,
    tokens      integer NOT NULL,
    fallback    boolean NOT NULL DEFAULT false,
    at          timestamptz NOT NULL
);

CREATE INDEX prompt_renders_at_idx ON prompt_renders (tenant_id, at);

-- +goose Down
DROP TABLE prompt_renders;
DROP TABLE prompt_scenes;
DROP TABLE prompt_template_versions;
DROP TABLE prompt_templates;
ALTER TABLE tenant_settings DROP COLUMN timezone;
