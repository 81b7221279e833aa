package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkAuthenticatedRequest measures one authenticated, validated
// request through the whole middleware chain (recover, request id, log,
// body limit, API-key auth with a warm cache, tenant, kin-openapi
// validation) and the handler, including its PostgreSQL round trip. No
// network: the request goes straight to the Echo handler.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	e := newBenchEnv(b)
	_, key := e.createKey(ptr("acme"), "admin")
	kb := e.createKB(key, "acme", "bench")
	path := "/api/v1/admin/kb/knowledge-bases/" + kb["id"].(string)
	h := e.app.server.Handler()

	do := func() int {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("X-API-Key", key)
		r.Header.Set("X-Tenant-Id", "acme")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if code := do(); code != http.StatusOK { // warms the key and tenant caches
		b.Fatalf("status %d", code)
	}
	b.ReportAllocs()
	for b.Loop() {
		if code := do(); code != http.StatusOK {
			b.Fatalf("status %d", code)
		}
	}
}

// BenchmarkRejectedWrite sends a complete JSON body that the contract
// refuses (a threshold over 1): the whole chain, body validation and
// problem rendering, without a database write.
func BenchmarkRejectedWrite(b *testing.B) {
	e := newBenchEnv(b)
	h := e.app.server.Handler()
	body := `{"transferConfidenceThreshold":0.5,"minHits":1,"minTopScore":0.3,"minEvidenceTokens":20,` +
		`"retrievalScoreThreshold":1.5,"frontend_base_url":null,"kb_vector_log_enabled":false,"kb_vector_log_path":"v.log","version":1}`
	do := func() int {
		r := httptest.NewRequest("PUT", "/api/v1/admin/settings", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-API-Key", e.root)
		r.Header.Set("X-Tenant-Id", "acme")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	if code := do(); code != http.StatusBadRequest {
		b.Fatalf("status %d", code)
	}
	b.ReportAllocs()
	for b.Loop() {
		if code := do(); code != http.StatusBadRequest {
			b.Fatalf("status %d", code)
		}
	}
}
