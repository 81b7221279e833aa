package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/domain"
)

// Quotas per tenant (issue 24) through the HTTP API: what is over a quota
// gets its documented status and `quota_exceeded` naming the quota, and
// stores nothing; usage follows what is stored; a platform key's override
// raises a limit, a tenant key cannot change its own.

// withQuotas runs the env on these platform defaults (the harness runs
// without any).
func withQuotas(set map[domain.Quota]int64) func(*config.Config) {
	return func(c *config.Config) {
		for q, n := range set {
			c.Quotas[q] = n
		}
	}
}

// quotaRefusal checks that r is a quota's refusal with status, naming
// quota, and returns the problem's quota object.
func quotaRefusal(t *testing.T, r response, status int, quota domain.Quota) map[string]any {
	t.Helper()
	require.Equal(t, status, r.Status, "%s", r.Body)
	assert.Equal(t, "quota_exceeded", r.Code(t))
	q, ok := r.JSON(t)["quota"].(map[string]any)
	require.True(t, ok, "the problem names the quota: %s", r.Body)
	assert.Equal(t, quota.Name(), q["name"])
	return q
}

// usage reads the tenant's usage with key ("" for the platform key):
// quota name (as in TenantUsage) → {limit, used}.
func (e *env) usage(key, tenant string) map[string]map[string]any {
	e.t.Helper()
	r := e.do(req{method: "GET", path: "/api/v1/admin/tenants/" + tenant, key: key})
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	out := map[string]map[string]any{}
	for name, v := range r.JSON(e.t)["usage"].(map[string]any) {
		out[name] = v.(map[string]any)
	}
	return out
}

// setQuotas replaces the tenant's quota overrides with a platform key.
func (e *env) setQuotas(tenant string, quotas map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/" + tenant, body: map[string]any{"quotas": quotas}})
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

// listed counts the items of a list's first page.
func (e *env) listed(tenant, path string) int {
	e.t.Helper()
	r := e.do(req{method: "GET", path: "/api/v1" + path, tenant: tenant})
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return len(r.JSON(e.t)["items"].([]any))
}

func TestOverACountQuotaIsRefusedAndStoresNothing(t *testing.T) {
	e := newEnv(t, withQuotas(map[domain.Quota]int64{
		domain.QuotaKnowledgeBases: 1, domain.QuotaIntentRules: 1, domain.QuotaScriptFlows: 1,
		domain.QuotaPromptTemplates: 1, domain.QuotaDecompositionTemplates: 1,
	}))
	prompt := func(name string) map[string]any {
		return map[string]any{"name": name, "scene": "chat", "content": map[string]any{
			"system_instruction": "Answer from:\n{{evidence}}", "variables": []any{map[string]any{"name": "evidence", "kind": "builtin"}}}}
	}
	for _, tc := range []struct {
		path   string
		quota  domain.Quota
		usage  string
		create func(name string) map[string]any
	}{
		{"/admin/kb/knowledge-bases", domain.QuotaKnowledgeBases, "knowledgeBases", func(n string) map[string]any {
			return map[string]any{"name": n}
		}},
		{"/admin/intent-rules", domain.QuotaIntentRules, "intentRules", func(n string) map[string]any {
			return map[string]any{"name": n, "keywords": []string{n}, "responseType": "fixed", "fixedText": "Hello."}
		}},
		{"/admin/script-flows", domain.QuotaScriptFlows, "scriptFlows", func(n string) map[string]any {
			f := orderFlow()
			f["name"] = n
			return f
		}},
		{"/admin/prompt-templates", domain.QuotaPromptTemplates, "promptTemplates", prompt},
		{"/admin/decomposition-templates", domain.QuotaDecompositionTemplates, "decompositionTemplates", func(n string) map[string]any {
			return map[string]any{"name": n, "content": decompositionContent("Extract the order.")}
		}},
	} {
		t.Run(tc.quota.Name(), func(t *testing.T) {
			e.create(t, "acme", tc.path, tc.create("first"))
			r := e.do(req{method: "POST", path: "/api/v1" + tc.path, tenant: "acme", body: tc.create("second")})
			q := quotaRefusal(t, r, http.StatusTooManyRequests, tc.quota)
			assert.EqualValues(t, 1, q["limit"])
			assert.EqualValues(t, 1, q["used"])
			assert.Contains(t, r.JSON(t)["detail"], tc.quota.Name())
			assert.Equal(t, 1, e.listed("acme", tc.path), "nothing stored")
			assert.Equal(t, map[string]any{"limit": 1.0, "used": 1.0}, e.usage("", "acme")[tc.usage])
			e.create(t, "globex", tc.path, tc.create("first")) // another tenant has its own
		})
	}
}

// A tenant key cannot change its tenant's quotas; a platform key's
// override raises a limit at once, and null returns to the default.
func TestAPlatformKeyOverridesATenantsQuota(t *testing.T) {
	e := newEnv(t, withQuotas(map[domain.Quota]int64{domain.QuotaKnowledgeBases: 1, domain.QuotaDocuments: 50}))
	_, tenantKey := e.createKey(ptr("acme"), "admin")
	e.createKB(tenantKey, "acme", "first")

	r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", key: tenantKey,
		body: map[string]any{"quotas": map[string]any{"knowledgeBases": 100}}})
	assert.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	assert.Equal(t, "forbidden", r.Code(t))
	r = e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", key: tenantKey, tenant: "acme", body: map[string]any{"name": "second"}})
	quotaRefusal(t, r, http.StatusTooManyRequests, domain.QuotaKnowledgeBases)

	tenant := e.setQuotas("acme", map[string]any{"knowledgeBases": 2})
	assert.Equal(t, map[string]any{"knowledgeBases": 2.0}, tenant["quotas"], "only the override is shown")
	assert.Equal(t, map[string]any{"limit": 2.0, "used": 1.0}, tenant["usage"].(map[string]any)["knowledgeBases"])
	assert.Equal(t, map[string]any{"limit": 50.0, "used": 0.0}, tenant["usage"].(map[string]any)["documents"], "the others keep the default")
	e.createKB(tenantKey, "acme", "second")
	assert.Equal(t, map[string]any{"limit": 2.0, "used": 2.0}, e.usage(tenantKey, "acme")["knowledgeBases"], "a tenant key reads its own usage")
	r = e.do(req{method: "GET", path: "/api/v1/admin/tenants/globex", key: tenantKey})
	assert.Equal(t, http.StatusForbidden, r.Status, "and no other tenant's")

	r = e.do(req{method: "GET", path: "/api/v1/admin/tenants?limit=10"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	for _, it := range r.JSON(t)["items"].([]any) {
		assert.NotContains(t, it.(map[string]any), "usage", "lists leave usage out")
	}

	tenant = e.setQuotas("acme", map[string]any{"knowledgeBases": nil})
	assert.Empty(t, tenant["quotas"])
	assert.Equal(t, map[string]any{"limit": 1.0, "used": 2.0}, tenant["usage"].(map[string]any)["knowledgeBases"],
		"lowered below what it holds, nothing is removed")
	r = e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", key: tenantKey, tenant: "acme", body: map[string]any{"name": "third"}})
	quotaRefusal(t, r, http.StatusTooManyRequests, domain.QuotaKnowledgeBases)
}

// paragraphs is a text document of n paragraphs, each a unit of its own.
func paragraphs(prefix string, n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s question %d: what does the %s plan %d cover? It covers item %d and nothing else.\n\n", prefix, i, prefix, i, i)
	}
	return []byte(b.String())
}

// Uploads count documents and their bytes; one that would pass either is
// refused and stores nothing; usage follows.
func TestDocumentAndStoredBytesQuotas(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	first := []byte("Refunds take three working days.\n")
	doc, job := e.uploadAndWait(upload{kbID: kb, partName: "refunds.txt", content: first})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	u := e.usage("", "acme")
	assert.EqualValues(t, 1, u["documents"]["used"])
	assert.EqualValues(t, len(first), u["storedBytes"]["used"])
	assert.EqualValues(t, len(e.chunks("acme", doc["id"].(string))), u["chunks"]["used"])
	assert.Positive(t, u["indexMemoryBytes"]["used"], "the index memory is estimated from the chunks")
	assert.Nil(t, u["documents"]["limit"], "the harness sets no default")

	e.setQuotas("acme", map[string]any{"documents": 2, "storedBytes": len(first) + 100})
	r := e.upload(upload{kbID: kb, partName: "big.txt", content: []byte(strings.Repeat("Shipping takes a week. ", 10))})
	q := quotaRefusal(t, r, http.StatusRequestEntityTooLarge, domain.QuotaStoredBytes)
	assert.EqualValues(t, len(first)+100, q["limit"])
	assert.EqualValues(t, len(first), q["used"])

	_, job = e.uploadAndWait(upload{kbID: kb, partName: "small.txt", content: []byte("Shipping is free.\n")})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	third := upload{kbID: kb, partName: "third.txt", content: []byte("Returns are free.\n")}
	retry := map[string]string{"Idempotency-Key": "third-upload"}
	r = e.uploadWith(third, retry)
	quotaRefusal(t, r, http.StatusTooManyRequests, domain.QuotaDocuments)
	assert.Equal(t, 2, e.listed("acme", "/admin/kb/documents"), "nothing of the refused uploads is stored")
	u = e.usage("", "acme")
	assert.Equal(t, map[string]any{"limit": 2.0, "used": 2.0}, u["documents"])
	assert.EqualValues(t, len(first)+len("Shipping is free.\n"), u["storedBytes"]["used"])

	r = e.do(req{method: "DELETE", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"})
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	r = e.uploadWith(third, retry)
	require.Equal(t, http.StatusAccepted, r.Status, "deleting made room, and the refusal was not kept for the key: %s", r.Body)
	assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
	job = e.waitJob("acme", r.JSON(t)["job"].(map[string]any)["id"].(string))
	assert.Equal(t, "succeeded", job["state"], "%v", job)
}

// A document whose chunks would pass the tenant's chunk or index memory
// quota fails its job with the quota's reason and indexes nothing; a
// tenant at either quota is refused uploads.
func TestChunkAndIndexMemoryQuotas(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	small, job := e.uploadAndWait(upload{kbID: kb, partName: "small.txt", content: paragraphs("basic", 1)})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	held := e.usage("", "acme")
	chunks, memory := int(held["chunks"]["used"].(float64)), int(held["indexMemoryBytes"]["used"].(float64))
	require.Positive(t, chunks)

	t.Run("at the chunk quota, an upload is refused", func(t *testing.T) {
		e.setQuotas("acme", map[string]any{"chunks": chunks})
		r := e.upload(upload{kbID: kb, partName: "more.txt", content: paragraphs("more", 1)})
		quotaRefusal(t, r, http.StatusTooManyRequests, domain.QuotaChunks)
		r = e.do(req{method: "POST", path: "/api/v1/admin/kb/documents/" + small["id"].(string) + "/reindex", tenant: "acme"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		job := e.waitJob("acme", r.JSON(t)["job"].(map[string]any)["id"].(string))
		assert.Equal(t, "succeeded", job["state"], "a document's own chunks are replaced, not added: %v", job)
	})
	t.Run("a document past the chunk quota fails its job", func(t *testing.T) {
		e.setQuotas("acme", map[string]any{"chunks": chunks + 1})
		doc, job := e.uploadAndWait(upload{kbID: kb, partName: "large.txt", content: paragraphs("premium", 40)})
		assert.Equal(t, "failed", job["state"])
		assert.Equal(t, domain.ReasonChunkQuota, job["reason"])
		assert.Contains(t, job["detail"], "chunks quota of")
		assert.Empty(t, e.chunks("acme", doc["id"].(string)), "nothing of it is indexed")
		assert.EqualValues(t, chunks, e.usage("", "acme")["chunks"]["used"])
		r := e.search("acme", map[string]any{"query": "what does the premium plan cover"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		for _, hit := range r.JSON(t)["items"].([]any) {
			assert.NotEqual(t, doc["id"], hit.(map[string]any)["documentId"])
		}
	})
	t.Run("at the index memory quota, an upload is too large", func(t *testing.T) {
		e.setQuotas("acme", map[string]any{"indexMemoryBytes": memory})
		r := e.upload(upload{kbID: kb, partName: "more.txt", content: paragraphs("more", 1)})
		quotaRefusal(t, r, http.StatusRequestEntityTooLarge, domain.QuotaIndexMemoryBytes)
	})
	t.Run("a document past the index memory quota fails its job", func(t *testing.T) {
		e.setQuotas("acme", map[string]any{"indexMemoryBytes": memory + 2000})
		doc, job := e.uploadAndWait(upload{kbID: kb, partName: "large.txt", content: paragraphs("premium", 40)})
		assert.Equal(t, "failed", job["state"])
		assert.Equal(t, domain.ReasonIndexMemoryQuota, job["reason"])
		assert.Empty(t, e.chunks("acme", doc["id"].(string)))
		assert.EqualValues(t, memory, e.usage("", "acme")["indexMemoryBytes"]["used"])
	})
	t.Run("raised, the same document indexes", func(t *testing.T) {
		tenant := e.setQuotas("acme", map[string]any{"chunks": 10_000})
		assert.Nil(t, tenant["quotas"].(map[string]any)["indexMemoryBytes"], "back to the default")
		_, job := e.uploadAndWait(upload{kbID: kb, partName: "large.txt", content: paragraphs("premium", 40)})
		assert.Equal(t, "succeeded", job["state"], "%v", job)
		assert.Greater(t, e.usage("", "acme")["chunks"]["used"], float64(chunks+1))
	})
}

// The embedded index holds a tenant to its share: a tenant larger than its
// share loads without evicting the others for more than that share, and
// goes first when another needs room.
func TestATenantEvictsOthersOnlyForItsIndexShare(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.IndexMemoryBytes = 250 << 10 })
	for tenant, doc := range map[string][]byte{"acme": paragraphs("basic", 1), "big": paragraphs("premium", 400)} {
		kb := e.createKB("", tenant, "faq")["id"].(string)
		_, job := e.uploadAndWait(upload{kbID: kb, tenant: tenant, partName: "faq.txt", content: doc})
		require.Equal(t, "succeeded", job["state"], "%v", job)
	}
	e.setQuotas("big", map[string]any{"indexMemoryBytes": 1})
	search := func(tenant string) {
		r := e.search(tenant, map[string]any{"query": "what does the plan cover"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.NotEmpty(t, r.JSON(t)["items"])
	}
	search("acme")
	small := e.app.index.Stats().Bytes
	require.Less(t, small, e.cfg.IndexMemoryBytes/2)
	search("big")
	st := e.app.index.Stats()
	require.Greater(t, st.Bytes-small, e.cfg.IndexMemoryBytes, "big alone is past the bound")
	assert.Equal(t, 2, st.Tenants, "big's bytes beyond its share evicted no one")
	assert.Zero(t, st.Evictions)
	search("acme")
	st = e.app.index.Stats()
	assert.Equal(t, 1, st.Tenants, "big, past its share, went when acme was used")
	assert.Equal(t, small, st.Bytes)
}
