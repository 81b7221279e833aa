-- Calls to addresses a tenant chose (issue 24): a model or embedding
-- configuration records whether a platform key (the operator) set it, since
-- only such a configuration may point to an internal address that the
-- operator's allow list does not name; background calls (question
-- generation, decomposition, summaries) follow the same rule. Existing
-- configurations count as a tenant's: an operator who pointed a tenant at
-- an internal runner saves it again with a platform key, or allow-lists it
-- (ASSISTANT_OUTBOUND_ALLOW).
--
-- The api_key columns keep their type: values are sealed (AES-GCM,
-- "sealed:v1:<key id>:…") by the service, which seals the clear values
-- of earlier versions at start.

-- +goose Up
ALTER TABLE llm_configs ADD COLUMN set_by_platform boolean NOT NULL DEFAULT false;
ALTER TABLE embedding_configs ADD COLUMN set_by_platform boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE embedding_configs DROP COLUMN set_by_platform;
ALTER TABLE llm_configs DROP COLUMN set_by_platform;
