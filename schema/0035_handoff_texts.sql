-- What a customer waiting for a person reads (once on waiting, once when
-- the wait ran out), per language, and how long the wait is; NULL is the
-- built-in text or wait (domain.HandoffTexts).

-- +goose Up
ALTER TABLE tenant_settings
    ADD COLUMN handoff_waiting_en text,
    ADD COLUMN handoff_waiting_zh text,
    ADD COLUMN handoff_fallback_en text,
    ADD COLUMN handoff_fallback_zh text,
    ADD COLUMN handoff_wait_seconds integer CHECK (handoff_wait_seconds BETWEEN 10 AND 86400);

-- +goose Down
ALTER TABLE tenant_settings
    DROP COLUMN handoff_waiting_en, DROP COLUMN handoff_waiting_zh,
    DROP COLUMN handoff_fallback_en, DROP COLUMN handoff_fallback_zh, DROP COLUMN handoff_wait_seconds;
