-- A tenant's guardrails. Every query filters by tenant_id: a word or rule
-- of another tenant is invisible, exactly like one that does not exist.

-- name: LockGuardrails :exec
-- Serialises a tenant's guardrail writes until the transaction ends, so
-- each write validates the configuration the previous one left.
SELECT pg_advisory_xact_lock(hashtextextended('guardrails:' || @tenant_id::text, 0));

-- name: CreateForbiddenWord :one
INSERT INTO guard_forbidden_words (id, tenant_id, word, match_mode, action, replacement)
VALUES (@id, @tenant_id, @word, @match_mode, @action, @replacement)
RETURNING *;

-- name: GetForbiddenWord :one
SELECT * FROM guard_forbidden_words WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListForbiddenWords :many
SELECT * FROM guard_forbidden_words
WHERE tenant_id = @tenant_id AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: AllForbiddenWords :many
SELECT * FROM guard_forbidden_words WHERE tenant_id = @tenant_id ORDER BY id;

-- name: UpdateForbiddenWord :one
UPDATE guard_forbidden_words
SET word = @word, match_mode = @match_mode, action = @action, replacement = @replacement,
    version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id AND version = @version
RETURNING *;

-- name: ForbiddenWordExists :one
SELECT EXISTS (SELECT 1 FROM guard_forbidden_words WHERE tenant_id = @tenant_id AND id = @id);

-- name: DeleteForbiddenWord :execrows
DELETE FROM guard_forbidden_words WHERE tenant_id = @tenant_id AND id = @id;

-- name: CreateBehaviorRule :one
INSERT INTO guard_behavior_rules (id, tenant_id, name, kind, pattern, category, action, text, enabled, position)
VALUES (@id, @tenant_id, @name, @kind, @pattern, @category, @action, @text, @enabled,
        CASE WHEN @position::integer >= 0 THEN @position::integer
             ELSE (SELECT COALESCE(max(r.position) + 1, 0) FROM guard_behavior_rules r WHERE r.tenant_id = @tenant_id) END)
RETURNING *;

-- name: GetBehaviorRule :one
SELECT * FROM guard_behavior_rules WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListBehaviorRules :many
SELECT * FROM guard_behavior_rules
WHERE tenant_id = @tenant_id
  AND (@after_id::text = '' OR (position, id) > (@after_position::integer, @after_id::text))
ORDER BY position, id
LIMIT @lim;

-- name: AllBehaviorRules :many
SELECT * FROM guard_behavior_rules WHERE tenant_id = @tenant_id ORDER BY position, id;

-- name: UpdateBehaviorRule :one
UPDATE guard_behavior_rules
SET name = @name, kind = @kind, pattern = @pattern, category = @category, action = @action, text = @text,
    enabled = @enabled, position = @position, version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id AND version = @version
RETURNING *;

-- name: BehaviorRuleExists :one
SELECT EXISTS (SELECT 1 FROM guard_behavior_rules WHERE tenant_id = @tenant_id AND id = @id);

-- name: DeleteBehaviorRule :execrows
DELETE FROM guard_behavior_rules WHERE tenant_id = @tenant_id AND id = @id;

-- name: GetGuardSettings :one
SELECT * FROM guard_settings WHERE tenant_id = @tenant_id;

-- name: InsertGuardSettings :one
INSERT INTO guard_settings (tenant_id, safe_text, skip_default_high_risk, high_risk)
VALUES (@tenant_id, @safe_text, @skip_default_high_risk, @high_risk)
ON CONFLICT (tenant_id) DO NOTHING
RETURNING *;

-- name: UpdateGuardSettings :one
UPDATE guard_settings
SET safe_text = @safe_text, skip_default_high_risk = @skip_default_high_risk, high_risk = @high_risk,
    version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND version = @version
RETURNING *;
