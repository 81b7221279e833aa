package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

// Bad input is always a 4xx problem+json with a stable code, never a 500.
func TestBadInputIsAProblemNeverA500(t *testing.T) {
	e := newEnv(t)
	kbs := "/api/v1/admin/kb/knowledge-bases"
	cases := []struct {
		name   string
		r      req
		status int
		code   string
		field  string
	}{
		{"wrong type", req{method: "POST", path: kbs, tenant: "acme", body: `{"name": 123}`}, 400, "validation_failed", "/name"},
		{"missing required field", req{method: "POST", path: kbs, tenant: "acme", body: `{"description": "x"}`}, 400, "validation_failed", "/name"},
		{"blank name", req{method: "POST", path: kbs, tenant: "acme", body: `{"name": "   "}`}, 400, "validation_failed", "/name"},
		{"over-long string", req{method: "POST", path: kbs, tenant: "acme", body: `{"name": "` + strings.Repeat("x", 129) + `"}`}, 400, "validation_failed", "/name"},
		{"unknown field", req{method: "POST", path: kbs, tenant: "acme", body: `{"name": "a", "colour": "red"}`}, 400, "validation_failed", "/colour"},
		{"unknown enum value", req{method: "POST", path: "/api/v1/admin/api-keys", body: `{"name": "a", "scopes": ["root"]}`}, 400, "validation_failed", "/scopes/0"},
		{"empty scopes", req{method: "POST", path: "/api/v1/admin/api-keys", body: `{"name": "a", "scopes": []}`}, 400, "validation_failed", "/scopes"},
		{"malformed tenant id in the body", req{method: "POST", path: "/api/v1/admin/api-keys", body: `{"name": "a", "scopes": ["chat"], "tenantId": "NO"}`}, 400, "validation_failed", "/tenantId"},
		{"bad date-time", req{method: "POST", path: "/api/v1/admin/api-keys", body: `{"name": "a", "scopes": ["chat"], "expiresAt": "tomorrow"}`}, 400, "validation_failed", "/expiresAt"},
		{"malformed JSON", req{method: "POST", path: kbs, tenant: "acme", body: `{"name": "a",`}, 400, "malformed_json", ""},
		{"JSON that is not an object", req{method: "POST", path: kbs, tenant: "acme", body: `[1,2]`}, 400, "validation_failed", ""},
		{"empty body", req{method: "POST", path: kbs, tenant: "acme", body: ``}, 400, "validation_failed", "body"},
		{"wrong content type", req{method: "POST", path: kbs, tenant: "acme", body: `name=a`, contentType: "text/plain"}, 415, "unsupported_media_type", ""},
		{"unparsable content type", req{method: "POST", path: kbs, tenant: "acme", body: `{"name":"a"}`, contentType: "json;;;"}, 415, "unsupported_media_type", ""},
		{"limit out of range", req{method: "GET", path: kbs + "?limit=0", tenant: "acme"}, 400, "validation_failed", "query.limit"},
		{"limit not a number", req{method: "GET", path: kbs + "?limit=ten", tenant: "acme"}, 400, "validation_failed", "query.limit"},
		{"cursor with bad characters", req{method: "GET", path: kbs + "?cursor=%24%24", tenant: "acme"}, 400, "validation_failed", "query.cursor"},
		{"cursor not made here", req{method: "GET", path: kbs + "?cursor=A", tenant: "acme"}, 400, "invalid_cursor", "query.cursor"},
		{"malformed id in the path", req{method: "GET", path: kbs + "/kb_nope", tenant: "acme"}, 400, "validation_failed", "path.kbId"},
		{"bad enum in the query", req{method: "GET", path: "/api/v1/admin/tenants?status=gone"}, 400, "validation_failed", "query.status"},
		{"bad boolean in the query", req{method: "GET", path: "/api/v1/admin/api-keys?includeRevoked=maybe"}, 400, "validation_failed", "query.includeRevoked"},
		{"empty PATCH", req{method: "PATCH", path: "/api/v1/admin/tenants/acme", body: `{}`}, 400, "validation_failed", ""},
		{"version below 1", req{method: "PUT", path: kbs + "/kb_0123456789abcdef0123456789abcdef", tenant: "acme", body: `{"name":"a","description":"","version":0}`}, 400, "validation_failed", "/version"},
		{"unknown path", req{method: "GET", path: "/api/v1/admin/nothing-here"}, 404, "not_found", ""},
		{"unknown method", req{method: "PATCH", path: kbs, tenant: "acme", body: `{}`}, 405, "method_not_allowed", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.r)
			require.Equal(t, c.status, r.Status, "%s", r.Body)
			assert.Equal(t, c.code, r.Code(t))
			p := r.JSON(t)
			assert.Equal(t, "urn:assistant:problem:"+c.code, p["type"])
			assert.NotEmpty(t, p["detail"])
			if c.field != "" {
				var fields []string
				for _, f := range p["errors"].([]any) {
					fields = append(fields, f.(map[string]any)["field"].(string))
				}
				assert.Contains(t, fields, c.field)
			}
		})
	}
	var n int
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM knowledge_bases").Scan(&n))
	assert.Zero(t, n, "no bad request stored anything")
}

func TestOversizedBodies(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.MaxBodyBytes = 1024 })
	big := `{"name": "a", "description": "` + strings.Repeat("x", 2000) + `"}`
	t.Run("with Content-Length the body is refused before it is read", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: big})
		assert.Equal(t, http.StatusRequestEntityTooLarge, r.Status)
		assert.Equal(t, "payload_too_large", r.Code(t))
	})
	t.Run("a chunked body is cut off while streaming", func(t *testing.T) {
		hr, err := http.NewRequest("POST", e.srv.URL+"/api/v1/admin/kb/knowledge-bases", struct{ *strings.Reader }{strings.NewReader(big)})
		require.NoError(t, err)
		hr.ContentLength = -1 // unknown length: sent chunked
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("X-API-Key", e.root)
		hr.Header.Set("X-Tenant-Id", "acme")
		res, err := e.srv.Client().Do(hr)
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
		assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
	})
	t.Run("a body under the limit is fine", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: `{"name": "small"}`})
		assert.Equal(t, http.StatusCreated, r.Status)
	})
}

func TestHugeInputsAreQuotedWithinTheContractsLimits(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("é", 3000)
	r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: `{"name": "a", "` + long + `": 1}`})
	assert.Equal(t, http.StatusBadRequest, r.Status) // e.do checked the problem against the contract's maxLength
	r = e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: `{}`, contentType: "text/" + strings.Repeat("x", 5000)})
	assert.Equal(t, http.StatusUnsupportedMediaType, r.Status)
}
