package main

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// After an embedding model change, POST /admin/kb/reindex with staleOnly
// and `assistant reindex --stale` queue exactly the stale documents (one
// implementation, ingest.Service.ReindexAll), and the command waits until
// they are indexed with the new model.
func TestCLIReindexStale(t *testing.T) {
	e := newEnv(t)
	kbA := e.createKB("", "acme", "faq")["id"].(string)
	kbB := e.createKB("", "acme", "manuals")["id"].(string)
	docA, jobA := e.uploadAndWait(upload{kbID: kbA, partName: "refunds.txt", content: []byte("refunds take three days\n")})
	docB, jobB := e.uploadAndWait(upload{kbID: kbB, partName: "shipping.txt", content: []byte("shipping is free\n")})
	require.Equal(t, "succeeded", jobA["state"])
	require.Equal(t, "succeeded", jobB["state"])
	// Another tenant's document stays on its model: never stale.
	globexKB := e.createKB("", "globex", "faq")["id"].(string)
	_, jobC := e.uploadAndWait(upload{kbID: globexKB, partName: "hours.txt", content: []byte("open nine to five\n"), tenant: "globex"})
	require.Equal(t, "succeeded", jobC["state"])

	var calls atomic.Int64
	const key = "sk-test-0123456789abcdef"
	provider := fakeOpenAI(t, key, &calls)
	r := e.do(req{method: "PUT", path: "/api/v1/admin/embedding/config", tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": provider.URL + "/v1", "apiKey": key, "model": "text-embedding-3-small", "version": 0,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.EqualValues(t, 2, r.JSON(t)["staleDocuments"])
	const newModel = "openai_compatible:text-embedding-3-small@768"
	status := func(doc map[string]any) string {
		return e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).JSON(t)["status"].(string)
	}

	t.Run("the API queues one knowledge base's stale documents", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/reindex", tenant: "acme", body: map[string]any{"kbId": kbA, "staleOnly": true}})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		res := r.JSON(t)
		assert.EqualValues(t, 1, res["queued"])
		jobs := res["jobIds"].([]any)
		require.Len(t, jobs, 1)
		assert.Equal(t, "succeeded", e.waitJob("acme", jobs[0].(string))["state"])
		assert.Equal(t, "ready", status(docA))
		assert.Equal(t, "stale", status(docB), "the other knowledge base's stays stale")
	})
	t.Run("reindex --stale queues the rest of every tenant's and waits for them", func(t *testing.T) {
		before := calls.Load()
		r := e.cli(t, "reindex", "--stale")
		require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
		assert.Equal(t, "1 document(s) queued, 1 indexed, 0 failed; 0 already queued or running, left alone\n", r.stdout)
		assert.Contains(t, r.stderr, "reindex: sent 1/1, succeeded 1, failed 0, remaining 0\n")
		got := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + docB["id"].(string), tenant: "acme"}).JSON(t)
		assert.Equal(t, "ready", got["status"])
		assert.Equal(t, newModel, got["embeddingModel"])
		assert.Greater(t, calls.Load(), before, "embedded with the new model")
		assert.NotEmpty(t, e.search("acme", map[string]any{"query": "shipping free"}).JSON(t)["items"])
	})
	t.Run("nothing stale is left", func(t *testing.T) {
		r := e.cli(t, "reindex", "--stale", "--tenant", "acme")
		require.Equal(t, exitOK, r.code, "%s", r.stderr)
		assert.Equal(t, "0 document(s) queued, 0 indexed, 0 failed; 0 already queued or running, left alone\n", r.stdout)
		res := e.do(req{method: "POST", path: "/api/v1/admin/kb/reindex", tenant: "acme", body: map[string]any{"staleOnly": true}}).JSON(t)
		assert.EqualValues(t, 0, res["queued"])
	})
	t.Run("reindex --all takes every document of a knowledge base", func(t *testing.T) {
		r := e.cli(t, "reindex", "--all", "--kb", kbB)
		require.Equal(t, exitOK, r.code, "%s", r.stderr)
		assert.Equal(t, "1 document(s) queued, 1 indexed, 0 failed; 0 already queued or running, left alone\n", r.stdout)
	})
	t.Run("an unknown tenant is named, not created", func(t *testing.T) {
		r := e.cli(t, "reindex", "--stale", "--tenant", "initech")
		assert.Equal(t, exitFail, r.code)
		assert.Contains(t, r.stderr, "--tenant initech: no such tenant")
		r2 := e.do(req{method: "GET", path: "/api/v1/admin/tenants/initech"})
		assert.Equal(t, http.StatusNotFound, r2.Status)
	})
}
