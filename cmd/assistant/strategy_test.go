package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func strategyBody(overrides map[string]any) map[string]any {
	s := map[string]any{
		"mode": "hybrid", "topK": 5, "scoreThreshold": 0.3, "lexicalWeight": 0.3, "maxEvidenceTokens": 2000,
		"minHits": 1, "minTopScore": 0.3, "minEvidenceTokens": 20, "transferConfidenceThreshold": 0.5,
	}
	for k, v := range overrides {
		s[k] = v
	}
	return s
}

func TestRetrievalStrategySwitchValidateRollbackAudit(t *testing.T) {
	e := newEnv(t)
	_, acme := e.createKey(ptr("acme"), "admin")
	_, chat := e.createKey(ptr("acme"), "chat")
	cur := e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/current", key: acme, tenant: "acme"})
	require.Equal(t, http.StatusOK, cur.Status, "%s", cur.Body)
	def := cur.JSON(t)
	assert.Equal(t, "hybrid", def["mode"], "the default strategy")
	assert.EqualValues(t, 0.7, def["lexicalWeight"], "leaning on words with the offline lexical embedder")
	assert.EqualValues(t, 0.25, def["scoreThreshold"], "from the tenant's settings")
	assert.EqualValues(t, 0.4, def["minAnswerability"], "the default answerability check")

	t.Run("validate reports risks without switching", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/validate", key: acme, tenant: "acme",
			body: strategyBody(map[string]any{"scoreThreshold": 0.05, "topK": 40, "maxEvidenceTokens": 30000})})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		rep := r.JSON(t)
		assert.Equal(t, "high", rep["highest"])
		codes := map[string]string{}
		for _, f := range rep["findings"].([]any) {
			m := f.(map[string]any)
			codes[m["code"].(string)] = m["level"].(string)
			assert.NotEmpty(t, m["reason"])
		}
		assert.Equal(t, "high", codes["noise_passes"])
		assert.Equal(t, "high", codes["evidence_overflow"])
		assert.Equal(t, def, e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/current", key: acme, tenant: "acme"}).JSON(t), "unchanged")
	})
	t.Run("an impossible strategy is refused", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", key: acme, tenant: "acme", body: strategyBody(map[string]any{"minHits": 9, "topK": 3})})
		assert.Equal(t, "validation_failed", r.Code(t))
		r = e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", key: acme, tenant: "acme", body: strategyBody(map[string]any{"mode": "magic"})})
		assert.Equal(t, "validation_failed", r.Code(t))
	})
	t.Run("switch applies at once and is audited", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", key: acme, tenant: "acme", body: strategyBody(map[string]any{"mode": "vector"})})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "hybrid", r.JSON(t)["previous"].(map[string]any)["mode"])
		assert.Equal(t, "vector", e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/current", key: acme, tenant: "acme"}).JSON(t)["mode"])
		assert.Equal(t, "hybrid", e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/current", tenant: "globex"}).JSON(t)["mode"], "per tenant")
	})
	t.Run("rollback returns to the default", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/rollback", key: acme, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "hybrid", r.JSON(t)["strategy"].(map[string]any)["mode"])
		assert.Equal(t, def, e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/current", key: acme, tenant: "acme"}).JSON(t))
	})
	t.Run("the audit says who, when, from what to what", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/audit", key: acme, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 2)
		last := items[0].(map[string]any)
		assert.Equal(t, "rollback", last["action"])
		assert.Regexp(t, `^key_`, last["keyId"])
		assert.Equal(t, "vector", last["from"].(map[string]any)["mode"])
		assert.Equal(t, "hybrid", last["to"].(map[string]any)["mode"])
		assert.Empty(t, e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/audit", tenant: "globex"}).JSON(t)["items"], "isolated between tenants")
	})
	t.Run("strategy routes need the admin scope", func(t *testing.T) {
		assert.Equal(t, "forbidden", e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/current", key: chat, tenant: "acme"}).Code(t))
	})
	t.Run("metrics answer even before traffic", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/metrics", key: acme, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Empty(t, r.JSON(t)["items"])
	})
}
