-- What a customer reads when the assistant hands over, per language; NULL
-- is the built-in text of that language.

-- +goose Up
ALTER TABLE tenant_settings
    ADD COLUMN handoff_message_en text,
    ADD COLUMN handoff_message_zh text;

-- +goose Down
ALTER TABLE tenant_settings DROP COLUMN handoff_message_en, DROP COLUMN handoff_message_zh;
