package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/qdrantfake"
)

// TestQdrantReplicasShareTheSearchState: two replicas on one database and
// one Qdrant hold no search state of their own. A document indexed through
// one is found by words and by hybrid search through the other at once,
// with no restart and no notification to follow, and a delete through the
// other is gone for the first; neither process built a BM25 index.
func TestQdrantReplicasShareTheSearchState(t *testing.T) {
	q := qdrantfake.Start(t, domain.EmbeddingDims, "qdrant-secret")
	one := newEnv(t, func(c *config.Config) { c.QdrantURL, c.QdrantAPIKey = q.URL(), "qdrant-secret" })
	two := startEnv(t, one.cfg)
	for name, e := range map[string]*env{"one": one, "two": two} {
		require.NotNil(t, e.app.qdrant, name)
		assert.Nil(t, e.app.index, "%s holds no vectors or BM25 postings", name)
		require.NotNil(t, e.app.termStats, name)
		assert.Same(t, e.app.termStats, e.app.words(), "%s searches words in Qdrant, keeping only the term counts", name)
	}

	kb := one.createKB("", "acme", "products")["id"].(string)
	doc, job := one.uploadAndWait(upload{kbID: kb, partName: "notes.txt", content: []byte(
		"Release notes. The spring release brings a redesigned settings page and a fix for the pairing problem " +
			"reported by owners of the qx7731 adapter.")})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	_, job = one.uploadAndWait(upload{kbID: kb, partName: "router.txt", content: []byte(
		"Customer support guide for the home router. Restart the router and wait for the wifi light to turn green.")})
	require.Equal(t, "succeeded", job["state"], "%v", job)

	lab := func(e *env, query, mode string) labResult {
		t.Helper()
		r := e.do(req{method: "POST", path: "/api/v1/admin/rag/experiments/run", tenant: "acme",
			body: map[string]any{"query": query, "strategy": labStrategy(map[string]any{"mode": mode})}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var out labResult
		require.NoError(t, json.Unmarshal(r.Body, &out))
		return out
	}
	code := func(r labResult) *labCandidate {
		for i, c := range r.Candidates {
			if strings.Contains(c.Text, "qx7731") {
				return &r.Candidates[i]
			}
		}
		return nil
	}

	got := lab(two, "Is the qx7731 adapter fixed?", "hybrid")
	c := code(got)
	require.NotNil(t, c, "replica two finds what replica one indexed: %+v", got.Candidates)
	require.NotNil(t, c.LexicalScore, "by its words")
	require.NotNil(t, c.VectorScore, "and by its vector")
	assert.True(t, c.Kept)
	assert.Equal(t, got.Candidates[0].ChunkID, c.ChunkID, "the unit with the rare code is the most relevant")
	assert.Positive(t, c.Coverage, "answerability counts the tenant's terms in Qdrant")
	for _, other := range got.Candidates {
		if other.ChunkID != c.ChunkID && other.LexicalScore != nil {
			assert.Less(t, *other.LexicalScore, *c.LexicalScore, "%s", other.Text)
		}
	}
	assert.Positive(t, q.Calls("/QueryBatch"), "hybrid retrieval is one Qdrant request")
	assert.Positive(t, q.Calls("/Count"), "term statistics come from Qdrant")

	vectorOnly := lab(two, "Is the qx7731 adapter fixed?", "vector")
	for _, cand := range vectorOnly.Candidates {
		assert.Nil(t, cand.LexicalScore, "vector mode asks no words")
	}

	require.Equal(t, http.StatusNoContent, two.do(req{method: "DELETE", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).Status)
	assert.Nil(t, code(lab(one, "Is the qx7731 adapter fixed?", "hybrid")), "a delete through replica two is gone for replica one at once")
}
