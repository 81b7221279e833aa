package main

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/qdrantfake"
)

// Documents of the term-count test. The guide answers the question but
// for its adapter, a word the tenant's knowledge lacks until the travel
// note names it, which lowers its weight: then the guide covers most of
// the question.
const (
	routerGuide = "Customer support guide for the home router. Restart the router and wait for the wifi light to turn green."
	travelNote  = "Travel kit: a plug adapter for sockets abroad, sold separately."
)

// hear records the index changes e's caches are handed from now on. The
// function it returns waits until they were handed every change
// announced before it is called, and returns them: it announces a change
// of a tenant of its own and waits for it, since a replica hears the
// changes in commit order.
func (e *env) hear() func() []domain.IndexChange {
	e.t.Helper()
	barrier := domain.TenantID("barrier-" + access.NewSecret())
	var mu sync.Mutex
	var heard []domain.IndexChange
	passed := make(chan struct{})
	stop := e.app.indexChanges.Subscribe(func(c domain.IndexChange) {
		if c.Tenant == barrier {
			close(passed)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, c)
	}, func() {})
	return func() []domain.IndexChange {
		e.t.Helper()
		defer stop()
		require.NoError(e.t, e.app.store.AnnounceIndexChange(context.Background(), domain.IndexChange{Tenant: barrier}))
		select {
		case <-passed:
		case <-time.After(10 * time.Second):
			e.t.Fatal("the replica never heard its own announcement")
		}
		mu.Lock()
		defer mu.Unlock()
		return heard
	}
}

// TestQdrantTermCountsAreKeptUntilTheDocumentsChange: with Qdrant, a
// message asks Qdrant for the counts of its terms once; the same terms
// again cost no count, until a document of the tenant is uploaded or
// deleted, through this replica or another: the next message counts
// again, and answers as a replica that never kept a count does.
func TestQdrantTermCountsAreKeptUntilTheDocumentsChange(t *testing.T) {
	q := qdrantfake.Start(t, domain.EmbeddingDims, "")
	one := newEnv(t, func(c *config.Config) { c.QdrantURL = q.URL() })
	two := startEnv(t, one.cfg)
	one.waitReplicasListening(2)
	kb := one.createKB("", "acme", "support")["id"].(string)
	_, job := one.uploadAndWait(upload{kbID: kb, partName: "router.txt", content: []byte(routerGuide)})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	r := one.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", tenant: "acme",
		body: strategyBody(map[string]any{"mode": "hybrid", "scoreThreshold": 0.1, "minTopScore": 0.15, "transferConfidenceThreshold": 0.2})})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	const question = "How do I restart the router adapter?"
	// ask sends the question through e in a new session, and returns what
	// the reply says and how many counts Qdrant was asked for meanwhile.
	ask := func(e *env) (map[string]any, int) {
		t.Helper()
		before := q.Calls("/Count")
		reply := e.newChat("acme", nil).send(t, question)
		counts := q.Calls("/Count") - before
		for _, id := range []string{"messageId", "sessionId", "traceId", "createdAt"} {
			delete(reply, id)
		}
		return reply, counts
	}
	// uncached is the reply of a replica started now, which keeps no count.
	uncached := func() map[string]any {
		t.Helper()
		fresh := startEnv(t, one.cfg)
		reply, counts := ask(fresh)
		require.Equal(t, 4, counts, "a replica that kept nothing counts the tenant and each term")
		return reply
	}

	first, counts := ask(one)
	assert.Equal(t, 4, counts, "the first message counts the tenant and its 3 terms")
	assert.Equal(t, "low_answerability", first["transferReason"], "the adapter is unknown: the guide covers little")
	again, counts := ask(one)
	assert.Zero(t, counts, "the same terms again: no count")
	assert.Equal(t, first, again)

	heard := one.hear()
	doc, job := one.uploadAndWait(upload{kbID: kb, partName: "travel.txt", content: []byte(travelNote)})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	indexed := domain.IndexChange{Tenant: "acme", DocumentID: doc["id"].(string)}
	assert.Equal(t, []domain.IndexChange{indexed, indexed}, heard(), "the chunks stored, then the points in Qdrant")
	uploaded, counts := ask(one)
	assert.Equal(t, 4, counts, "a document uploaded: the tenant's counts were dropped")
	assert.Equal(t, uncached(), uploaded, "the reply of fresh counts")
	assert.Equal(t, "rag", uploaded["responseType"], "the adapter, known now, weighs less: the guide answers")
	require.NotEmpty(t, uploaded["sources"])
	assert.Equal(t, "router.txt", uploaded["sources"].([]any)[0].(map[string]any)["documentName"])
	_, counts = ask(one)
	assert.Zero(t, counts, "kept again")

	heard = one.hear()
	require.Equal(t, http.StatusNoContent, two.do(req{method: "DELETE", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).Status)
	deletion := domain.IndexChange{Tenant: "acme", DocumentID: doc["id"].(string), Deleted: true}
	assert.Equal(t, []domain.IndexChange{deletion, deletion}, heard(), "the rows deleted, then the points")
	deleted, counts := ask(one)
	assert.Equal(t, 4, counts, "a document deleted through another replica: dropped there too")
	assert.Equal(t, first, deleted, "the knowledge of the first message, so its reply")
	assert.Equal(t, uncached(), deleted)

	m := one.scrape(t)
	assert.Positive(t, m.value("assistant_cache_lookups_total", map[string]string{"cache": "term_stats", "result": "hit"}))
	assert.Positive(t, m.value("assistant_cache_lookups_total", map[string]string{"cache": "term_stats", "result": "miss"}))
}
