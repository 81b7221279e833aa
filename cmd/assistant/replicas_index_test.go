package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// foundWays reports how a hybrid lab search of tenant acme for query,
// through e, finds the chunk holding marker: by its vector, by its words.
// A failed request finds nothing (it is asserted, not required, so that it
// can run inside assert.Eventually).
func (e *env) foundWays(t *testing.T, query, marker string) [2]bool {
	r := e.do(req{method: "POST", path: "/api/v1/admin/rag/experiments/run", tenant: "acme",
		body: map[string]any{"query": query, "strategy": labStrategy(map[string]any{"mode": "hybrid"})}})
	var out labResult
	if !assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body) || !assert.NoError(t, json.Unmarshal(r.Body, &out)) {
		return [2]bool{}
	}
	var ways [2]bool
	for _, c := range out.Candidates {
		if strings.Contains(c.Text, marker) {
			ways[0] = ways[0] || c.VectorScore != nil
			ways[1] = ways[1] || c.LexicalScore != nil
		}
	}
	return ways
}

// Two replicas of the embedded index on one database. Neither loads
// anything at start; a tenant loads on its first search. A document
// indexed through one then reaches the other's resident tenant, found by
// its vector and by its words, without a restart; deleted through one, it
// is gone from both, both ways. Each step is announced by the writes
// themselves (chunks, vectors, the document's delete); store/hybrid's
// TestReplicasFollowEachOther covers re-indexing and knowledge bases.
func TestReplicasKeepBothSidesOfTheIndexCurrent(t *testing.T) {
	one := newEnv(t)
	two := startEnv(t, one.cfg)
	one.waitReplicasListening(2)
	for _, e := range []*env{one, two} {
		require.NotNil(t, e.app.index)
		assert.Zero(t, e.app.index.Stats().Tenants, "nothing loaded at start")
	}
	kb := one.createKB("", "acme", "faq")["id"].(string)
	const query, marker = "when do parcels ship", "parcels ship within two days"
	assert.Equal(t, [2]bool{}, two.foundWays(t, query, marker), "two loads acme, empty, on its first search")
	assert.Equal(t, 1, two.app.index.Stats().Tenants)

	both, neither := [2]bool{true, true}, [2]bool{}
	doc, job := one.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(marker + ".\n")})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	assert.Equal(t, both, one.foundWays(t, query, marker), "the writer reads its own write")
	assert.Eventually(t, func() bool { return two.foundWays(t, query, marker) == both }, 10*time.Second, 20*time.Millisecond,
		"indexed through one, found both ways through two")

	docPath := "/api/v1/admin/kb/documents/" + doc["id"].(string)
	require.Equal(t, http.StatusNoContent, one.do(req{method: "DELETE", path: docPath, tenant: "acme"}).Status)
	assert.Equal(t, neither, one.foundWays(t, query, marker))
	assert.Eventually(t, func() bool { return two.foundWays(t, query, marker) == neither }, 10*time.Second, 20*time.Millisecond,
		"deleted through one, gone both ways from two")
}
