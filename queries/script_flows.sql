-- Every query filters by tenant_id: a flow of another tenant is invisible,
-- exactly like one that does not exist.

-- name: CreateScriptFlow :one
INSERT INTO script_flows (id, tenant_id, name, description, enabled, steps)
VALUES (@id, @tenant_id, @name, @description, @enabled, @steps)
RETURNING *;

-- name: GetScriptFlow :one
SELECT * FROM script_flows WHERE tenant_id = @tenant_id AND id = @id;

-- name: ListScriptFlows :many
SELECT * FROM script_flows
WHERE tenant_id = @tenant_id AND (@before::text = '' OR id < @before)
ORDER BY id DESC
LIMIT @lim;

-- name: UpdateScriptFlow :one
UPDATE script_flows
SET name = @name, description = @description, enabled = @enabled, steps = @steps,
    version = version + 1, updated_at = now()
WHERE tenant_id = @tenant_id AND id = @id AND version = @version
RETURNING *;

-- name: ScriptFlowExists :one
SELECT EXISTS (SELECT 1 FROM script_flows WHERE tenant_id = @tenant_id AND id = @id);

-- name: DeleteScriptFlow :execrows
DELETE FROM script_flows WHERE tenant_id = @tenant_id AND id = @id;
