package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

func TestTenantSettings(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.FrontendBaseURL = "https://chat.example.org" })
	path := "/api/v1/admin/settings"
	r := e.do(req{method: "GET", path: path, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status)
	s := r.JSON(t)
	assert.Equal(t, "acme", s["tenantId"])
	assert.EqualValues(t, 0.25, s["retrievalScoreThreshold"], "the default, on calibrated relevance")
	assert.EqualValues(t, 0.35, s["transferConfidenceThreshold"])
	assert.Equal(t, map[string]any{"en": nil, "zh": nil}, s["handoffMessages"], "the built-in hand-off texts")
	assert.Equal(t, "https://chat.example.org", s["frontend_base_url"], "the service default")
	assert.Equal(t, false, s["kb_vector_log_enabled"])
	assert.Equal(t, "kb-vector.log", s["kb_vector_log_path"])

	update := map[string]any{
		"transferConfidenceThreshold": 0.7, "minHits": 2, "minTopScore": 0.4, "minEvidenceTokens": 50,
		"retrievalScoreThreshold": 0.35, "frontend_base_url": "https://support.acme.example",
		"kb_vector_log_enabled": true, "kb_vector_log_path": "logs/vectors.log", "version": 1,
	}
	r = e.do(req{method: "PUT", path: path, tenant: "acme", body: update})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	s = r.JSON(t)
	assert.EqualValues(t, 2, s["version"])
	assert.EqualValues(t, 0.7, s["transferConfidenceThreshold"])
	assert.Equal(t, "https://support.acme.example", s["frontend_base_url"])
	assert.Equal(t, s, e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t), "persisted")

	t.Run("a stale version is a conflict", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: update})
		assert.Equal(t, "version_conflict", r.Code(t))
	})
	t.Run("null frontend_base_url returns to the service default", func(t *testing.T) {
		update["version"], update["frontend_base_url"] = 2, nil
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: update})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "https://chat.example.org", r.JSON(t)["frontend_base_url"])
	})
	for _, bad := range []struct {
		name, field string
		value       any
	}{
		{"a log path escaping the tenant folder", "kb_vector_log_path", "logs/../../etc/passwd"},
		{"an absolute log path", "kb_vector_log_path", "/etc/passwd"},
		{"a threshold over 1", "retrievalScoreThreshold", 1.5},
		{"a non-http base url", "frontend_base_url", "javascript:alert(1)"},
		{"a negative hit count", "minHits", -1},
	} {
		t.Run(bad.name+" is refused", func(t *testing.T) {
			body := map[string]any{}
			for k, v := range update {
				body[k] = v
			}
			body["version"], body[bad.field] = 3, bad.value
			r := e.do(req{method: "PUT", path: path, tenant: "acme", body: body})
			assert.Equal(t, http.StatusBadRequest, r.Status)
			assert.Equal(t, "validation_failed", r.Code(t))
			assert.Equal(t, "/"+bad.field, r.JSON(t)["errors"].([]any)[0].(map[string]any)["field"])
		})
	}
	t.Run("settings are per tenant", func(t *testing.T) {
		r := e.do(req{method: "GET", path: path, tenant: "globex"})
		assert.EqualValues(t, 0.35, r.JSON(t)["transferConfidenceThreshold"])
	})
}
