package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fieldsPath = "/api/v1/admin/metadata/fields"

func (e *env) createField(tenant string, body map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: fieldsPath, tenant: tenant, body: body})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

func TestMetadataFieldLifecycle(t *testing.T) {
	e := newEnv(t)
	f := e.createField("acme", map[string]any{"key": "product", "label": "Product", "type": "enum",
		"enumValues": []string{"router", "camera"}, "scope": "document", "role": "filter", "required": true})
	id := f["id"].(string)
	assert.Regexp(t, `^mf_[0-9a-f]{32}$`, id)
	assert.Equal(t, "active", f["status"])
	assert.Equal(t, []any{"router", "camera"}, f["enumValues"])

	t.Run("a key is unique per scope, not across scopes", func(t *testing.T) {
		r := e.do(req{method: "POST", path: fieldsPath, tenant: "acme", body: map[string]any{"key": "product", "type": "string", "scope": "document", "role": "display"}})
		assert.Equal(t, "conflict", r.Code(t))
		e.createField("acme", map[string]any{"key": "product", "type": "string", "scope": "slot", "role": "routing"})
	})
	t.Run("enum fields need values, others take none", func(t *testing.T) {
		r := e.do(req{method: "POST", path: fieldsPath, tenant: "acme", body: map[string]any{"key": "a", "type": "enum", "scope": "document", "role": "filter"}})
		assert.Equal(t, "validation_failed", r.Code(t))
		r = e.do(req{method: "POST", path: fieldsPath, tenant: "acme", body: map[string]any{"key": "b", "type": "number", "enumValues": []string{"x"}, "scope": "document", "role": "filter"}})
		assert.Equal(t, "validation_failed", r.Code(t))
		r = e.do(req{method: "POST", path: fieldsPath, tenant: "acme", body: map[string]any{"key": "Bad-Key", "type": "number", "scope": "document", "role": "filter"}})
		assert.Equal(t, "validation_failed", r.Code(t))
	})
	t.Run("update replaces the definition; a stale version conflicts", func(t *testing.T) {
		body := map[string]any{"label": "Product line", "type": "enum", "required": false, "enumValues": []string{"router", "camera", "doorbell"},
			"role": "filter", "description": "which product", "version": 1}
		r := e.do(req{method: "PUT", path: fieldsPath + "/" + id, tenant: "acme", body: body})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.EqualValues(t, 2, r.JSON(t)["version"])
		assert.Equal(t, "product", r.JSON(t)["key"], "the key is fixed")
		assert.Equal(t, "version_conflict", e.do(req{method: "PUT", path: fieldsPath + "/" + id, tenant: "acme", body: body}).Code(t))
	})
	t.Run("status moves follow the life cycle", func(t *testing.T) {
		move := func(status string) response {
			return e.do(req{method: "POST", path: fieldsPath + "/" + id + "/status", tenant: "acme", body: map[string]any{"status": status}})
		}
		assert.Equal(t, "invalid_transition", move("archived").Code(t), "active cannot be archived directly")
		r := move("deprecated")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "deprecated", r.JSON(t)["status"])
		stale := e.do(req{method: "POST", path: fieldsPath + "/" + id + "/status", tenant: "acme", body: map[string]any{"status": "active", "version": 1}})
		assert.Equal(t, "version_conflict", stale.Code(t))
	})
	t.Run("listing hides deprecated fields unless asked", func(t *testing.T) {
		keys := func(path string) []string {
			var out []string
			for _, it := range e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["items"].([]any) {
				m := it.(map[string]any)
				out = append(out, m["scope"].(string)+"/"+m["key"].(string))
			}
			return out
		}
		assert.Equal(t, []string{"slot/product"}, keys(fieldsPath))
		assert.Equal(t, []string{"document/product", "slot/product"}, keys(fieldsPath+"?include_deprecated=true"))
		assert.Equal(t, []string{"document/product"}, keys(fieldsPath+"?status=deprecated"))
		assert.Equal(t, []string{"document/product"}, keys(fieldsPath+"/by-role/filter"))
		assert.Empty(t, keys(fieldsPath+"?scope=chunk"))
	})
	t.Run("schemas describe each scope", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/metadata/schemas?include_deprecated=true", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 2)
		doc := items[0].(map[string]any)
		assert.Equal(t, "document", doc["scope"])
		schema := doc["jsonSchema"].(map[string]any)
		assert.Equal(t, false, schema["additionalProperties"])
		product := schema["properties"].(map[string]any)["product"].(map[string]any)
		assert.Equal(t, []any{"router", "camera", "doorbell"}, product["enum"])
		assert.Equal(t, true, product["deprecated"])
	})
	t.Run("fields are tenant-scoped", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: fieldsPath + "/" + id, tenant: "globex"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: fieldsPath + "/" + id, tenant: "globex"}).Status)
		assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: fieldsPath + "/" + id, tenant: "acme"}).Status)
	})
	t.Run("deleting a scope's schema deletes its fields", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: "/api/v1/admin/metadata/schemas/slot", tenant: "acme"}).Status)
		assert.Empty(t, e.do(req{method: "GET", path: fieldsPath + "?scope=slot", tenant: "acme"}).JSON(t)["items"])
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: fieldsPath + "/" + id, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: fieldsPath + "/" + id, tenant: "acme"}).Status)
	})
}
