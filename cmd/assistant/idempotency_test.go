package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingModel is an OpenAI-compatible chat model that answers after
// delay and counts its calls.
func countingModel(t *testing.T, delay time.Duration, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Refunds take three working days [1]."}}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A retried message with the same Idempotency-Key gets the same reply
// once: no second model call, no second message; concurrent duplicates
// wait for the first; the same key with another message is 422.
func TestARetriedMessageWithTheSameIdempotencyKeyIsAnsweredOnce(t *testing.T) {
	e, _ := labEnv(t)
	var calls atomic.Int32
	useModel(t, e, "acme", countingModel(t, 300*time.Millisecond, &calls).URL)
	c := e.newChat("acme", nil)
	send := func(key, message string) response {
		return e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": message},
			header: map[string]string{"Idempotency-Key": key}})
	}
	first := send("retry-1", covered)
	require.Equal(t, http.StatusOK, first.Status, "%s", first.Body)
	assert.Empty(t, first.Header.Get("Idempotent-Replayed"))
	again := send("retry-1", covered)
	require.Equal(t, http.StatusOK, again.Status, "%s", again.Body)
	assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, first.JSON(t)["messageId"], again.JSON(t)["messageId"], "the same reply")
	assert.Equal(t, first.Body, again.Body)
	assert.EqualValues(t, 1, calls.Load(), "one model call")

	other := send("retry-1", "Can I cancel my order?")
	assert.Equal(t, http.StatusUnprocessableEntity, other.Status, "%s", other.Body)
	assert.Equal(t, "idempotency_mismatch", other.Code(t))

	// Two copies of one request at once: one runs, the other waits for it.
	var wg sync.WaitGroup
	replies := make([]response, 2)
	for i := range replies {
		wg.Add(1)
		go func() { defer wg.Done(); replies[i] = send("retry-2", covered) }()
	}
	wg.Wait()
	require.Equal(t, http.StatusOK, replies[0].Status, "%s", replies[0].Body)
	require.Equal(t, http.StatusOK, replies[1].Status, "%s", replies[1].Body)
	assert.Equal(t, replies[0].JSON(t)["messageId"], replies[1].JSON(t)["messageId"])
	assert.EqualValues(t, 2, calls.Load(), "one more model call for the two copies")

	msgs := e.do(req{method: "GET", path: c.path("/messages"), tenant: "acme"}).JSON(t)["items"].([]any)
	assert.Len(t, msgs, 4, "two questions and two replies are stored, nothing twice")

	// Without the header every request runs.
	r := e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": covered}})
	require.Equal(t, http.StatusOK, r.Status)
	assert.EqualValues(t, 3, calls.Load())
}

// Session creation, key creation and uploads honour the key too: a retry
// creates nothing new.
func TestRetriedCreationsWithAnIdempotencyKeyCreateOnce(t *testing.T) {
	e := newEnv(t)
	idem := map[string]string{"Idempotency-Key": "create-1"}
	s1 := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: "acme", body: map[string]any{"channel": "web"}, header: idem})
	s2 := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: "acme", body: map[string]any{"channel": "web"}, header: idem})
	require.Equal(t, http.StatusCreated, s1.Status, "%s", s1.Body)
	require.Equal(t, http.StatusCreated, s2.Status, "%s", s2.Body)
	assert.Equal(t, s1.JSON(t)["id"], s2.JSON(t)["id"])

	k1 := e.do(req{method: "POST", path: "/api/v1/admin/api-keys", body: map[string]any{"name": "ci", "scopes": []string{"chat"}}, header: idem})
	k2 := e.do(req{method: "POST", path: "/api/v1/admin/api-keys", body: map[string]any{"name": "ci", "scopes": []string{"chat"}}, header: idem})
	require.Equal(t, http.StatusCreated, k1.Status, "%s", k1.Body)
	// The secret is shown once and never kept for a retry (issue 24): the
	// retry is 409 naming the key it created.
	require.Equal(t, http.StatusConflict, k2.Status, "%s", k2.Body)
	assert.Equal(t, "conflict", k2.Code(t))
	assert.Equal(t, k1.Header.Get("Location"), k2.Header.Get("Location"))
	assert.NotContains(t, string(k2.Body), k1.JSON(t)["secret"].(string))
	var stored int
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM idempotency_keys WHERE position($1 in convert_from(body, 'UTF8')) > 0",
		k1.JSON(t)["secret"].(string)).Scan(&stored))
	assert.Zero(t, stored, "no idempotency record holds the secret")
	keys := e.do(req{method: "GET", path: "/api/v1/admin/api-keys?limit=200"}).JSON(t)["items"].([]any)
	named := 0
	for _, k := range keys {
		if k.(map[string]any)["name"] == "ci" {
			named++
		}
	}
	assert.Equal(t, 1, named)

	kb := e.createKB("", "acme", "faq")["id"].(string)
	up := func() response {
		return e.uploadWith(upload{kbID: kb, partName: "faq.txt", content: []byte(faq)}, map[string]string{"Idempotency-Key": "upload-1"})
	}
	u1, u2 := up(), up()
	require.Equal(t, http.StatusAccepted, u1.Status, "%s", u1.Body)
	require.Equal(t, http.StatusAccepted, u2.Status, "%s", u2.Body)
	assert.Equal(t, u1.JSON(t)["document"].(map[string]any)["id"], u2.JSON(t)["document"].(map[string]any)["id"])
	docs := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents", tenant: "acme"}).JSON(t)["items"].([]any)
	assert.Len(t, docs, 1)
	// Another file under the same key is refused.
	u3 := e.uploadWith(upload{kbID: kb, partName: "other.txt", content: []byte(strings.Repeat("x ", 10))}, map[string]string{"Idempotency-Key": "upload-1"})
	assert.Equal(t, http.StatusUnprocessableEntity, u3.Status, "%s", u3.Body)
}

// A request that claimed a key and died (its claim lapsed) does not block
// the key: the retry runs.
func TestARetryTakesOverTheKeyOfARequestThatDied(t *testing.T) {
	e := newEnv(t)
	// What the first request left: its key id is the root key's, acting in acme.
	first := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: "acme", body: map[string]any{}})
	require.Equal(t, http.StatusCreated, first.Status)
	p, err := e.app.keys.Authenticate(t.Context(), e.root)
	require.NoError(t, err)
	scope := p.KeyID + "|acme|POST /api/v1/chat/sessions"
	claimed, err := e.app.store.ClaimIdempotencyKey(t.Context(), scope, "died-1", "dead-request", time.Now().Add(-time.Second))
	require.NoError(t, err)
	require.True(t, claimed)

	start := time.Now()
	r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: "acme", body: map[string]any{},
		header: map[string]string{"Idempotency-Key": "died-1"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Less(t, time.Since(start), 30*time.Second, "it did not wait out the dead claim")
	assert.NotEqual(t, first.JSON(t)["id"], r.JSON(t)["id"])
}
