-- Stored responses of requests sent with an Idempotency-Key, so a retry
-- gets the first answer instead of doing the work twice. A row is claimed
-- (claim_token, locked_until) while its request runs and completed with
-- the response; rows older than 24 hours are ignored and purged.

-- +goose Up
CREATE TABLE idempotency_keys (
    scope         text        NOT NULL,
    idem_key      text        NOT NULL,
    claim_token   text        NOT NULL,
    state         text        NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done')),
    request_hash  bytea,
    status        integer,
    content_type  text,
    location      text,
    body          bytea,
    created_at    timestamptz NOT NULL DEFAULT now(),
    locked_until  timestamptz NOT NULL,
    PRIMARY KEY (scope, idem_key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
