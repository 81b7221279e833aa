-- Every query filters by tenant_id: a rule of another tenant is invisible,
-- exactly like one that does not exist.

-- name: LockIntentRules :exec
-- Serialises rule creation within a tenant for the duration of the
-- transaction, so that the per-tenant limit holds under concurrent creates.
SELECT pg_advisory_xact_lock(hashtextextended('intent_rules:' || @tenant_id::text, 0));

-- name: CountIntentRules :one
SELECT count(*) FROM intent_rules WHERE tenant_id = @tenant_id;

-- name: CreateIntentRule :one
INSERT INTO intent_rules (id, tenant_id, name, keywords, keyword_mode, patterns, priority, response_type,
                          fixed_text, kb_ids, flow_id, transfer_reason, enabled)
VALUES (@id, @tenant_id, @name, @keywords, @keyword_mode, @patterns, @priority, @response_type,
        @fixed_text, @kb_ids, @flow_id, @transfer_reason, @enabled)
RETURNING *;

-- name: GetIntentRule :one
SELECT * FROM intent_rules WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListIntentRules :many
SELECT * FROM intent_rules
WHERE tenant_id = @tenant_id AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: AllIntentRules :many
SELECT * FROM intent_rules
WHERE tenant_id = @tenant_id
ORDER BY priority DESC, id
LIMIT @lim;

-- name: UpdateIntentRule :one
UPDATE intent_rules
SET name = @name, keywords = @keywords, keyword_mode = @keyword_mode, patterns = @patterns, priority = @priority,
    response_type = @response_type, fixed_text = @fixed_text, kb_ids = @kb_ids, flow_id = @flow_id,
    transfer_reason = @transfer_reason, enabled = @enabled, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id AND version = @version
RETURNING *;

-- name: IntentRuleExists :one
SELECT EXISTS (SELECT 1 FROM intent_rules WHERE tenant_id = @tenant_id AND id = @id);

-- name: DeleteIntentRule :execrows
-- The rule's hits go with it (ON DELETE CASCADE).
DELETE FROM intent_rules WHERE tenant_id = @tenant_id AND id = @id;
