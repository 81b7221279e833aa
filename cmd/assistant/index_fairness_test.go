package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

// hangingProvider is an embedding endpoint that never answers: it reads
// each request whole (so that it notices the client hang up) and holds it
// until the client gives up, keeping how long it held each one.
type hangingProvider struct {
	srv  *httptest.Server
	mu   sync.Mutex
	held []time.Duration
}

func newHangingProvider(t *testing.T) *hangingProvider {
	p := &hangingProvider{}
	stop := make(chan struct{})
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
		p.mu.Lock()
		p.held = append(p.held, time.Since(start))
		p.mu.Unlock()
	}))
	t.Cleanup(func() {
		close(stop) // the service may still be waiting: let go of it first
		p.srv.Close()
	})
	return p
}

// longestHold is the longest time a request was held before its client
// gave up, and how many were.
func (p *hangingProvider) longestHold() (time.Duration, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var longest time.Duration
	for _, d := range p.held {
		longest = max(longest, d)
	}
	return longest, len(p.held)
}

// jobsOf lists a tenant's index jobs by id.
func (e *env) jobsOf(key, tenant string) map[string]map[string]any {
	e.t.Helper()
	r := e.do(req{method: "GET", path: "/api/v1/admin/kb/index/jobs?limit=100", key: key, tenant: tenant})
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	out := map[string]map[string]any{}
	for _, it := range r.JSON(e.t)["items"].([]any) {
		j := it.(map[string]any)
		out[j["id"].(string)] = j
	}
	return out
}

// A tenant whose embedding endpoint hangs holds one worker, not both: the
// other tenant's tiny document, on the offline default, is ready within
// seconds while the first tenant's jobs wait. The hanging call gives up at
// the operator's bound (here 6 s) rather than the tenant's 5 minutes, its
// job waits to retry without a worker (saying when), and the worker goes
// on with the tenant's next job.
func TestAHangingProviderHoldsOneWorkerAndBacksOff(t *testing.T) {
	const bound = 6 * time.Second
	e := newEnv(t, func(c *config.Config) {
		c.IndexWorkers, c.IndexJobsPerTenant = 2, 1
		c.IndexProviderTimeout, c.IndexProviderRetries = bound, 0
	})
	hang := newHangingProvider(t)
	_, acmeKey := e.createKey(ptr("acme"), "admin")
	r := e.do(req{method: "PUT", path: "/api/v1/admin/embedding/config", key: acmeKey, tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": hang.srv.URL + "/v1", "apiKey": "sk-hang-0123456789abcd",
		"model": "m", "timeoutMs": 300000, "retries": 10, "version": 0,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	kbA := e.createKB(acmeKey, "acme", "manuals")["id"].(string)
	var acmeJobs []string
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		up := e.upload(upload{kbID: kbA, partName: name, content: []byte("refunds take three days\n"), key: acmeKey, tenant: "acme"})
		require.Equal(t, http.StatusAccepted, up.Status, "%s", up.Body)
		acmeJobs = append(acmeJobs, up.JSON(t)["job"].(map[string]any)["id"].(string))
	}
	require.Eventually(t, func() bool {
		return e.jobsOf(acmeKey, "acme")[acmeJobs[0]]["state"] == "embedding"
	}, 20*time.Second, 20*time.Millisecond, "acme's first job waits on its provider")

	kbB := e.createKB("", "bolt", "faq")["id"].(string)
	start := time.Now()
	up := e.upload(upload{kbID: kbB, tenant: "bolt", partName: "faq.txt", content: []byte("shipping is free\n")})
	require.Equal(t, http.StatusAccepted, up.Status, "%s", up.Body)
	bolt := up.JSON(t)
	require.Eventually(t, func() bool {
		r := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + bolt["document"].(map[string]any)["id"].(string), tenant: "bolt"})
		return r.JSON(t)["status"] == "ready"
	}, 5*time.Second, 20*time.Millisecond, "bolt's document waits for acme's provider")
	t.Logf("bolt's document was ready %s after its upload", time.Since(start).Round(time.Millisecond))

	running := 0
	for id, j := range e.jobsOf(acmeKey, "acme") {
		assert.Contains(t, []any{"queued", "parsing", "chunking", "embedding", "indexing"}, j["state"], "acme's job %s is still pending", id)
		if j["state"] != "queued" {
			running++
		}
	}
	assert.LessOrEqual(t, running, 1, "acme runs at most its cap of jobs")

	// The hanging call ends at the operator's bound; the job waits to retry,
	// holding no worker, and the worker takes acme's next job meanwhile.
	var first map[string]any
	require.Eventually(t, func() bool {
		first = e.jobsOf(acmeKey, "acme")[acmeJobs[0]]
		return first["state"] == "queued" && first["reason"] == "embedding_failed"
	}, 3*bound, 50*time.Millisecond, "acme's first job backs off")
	assert.EqualValues(t, 1, first["attempts"])
	assert.Contains(t, first["detail"], "The embedding provider failed")
	next, err := time.Parse(time.RFC3339Nano, first["nextAttemptAt"].(string))
	require.NoError(t, err, "the job says when it is tried again: %v", first)
	assert.True(t, next.After(start), "a retry to come: %v", first)
	longest, calls := hang.longestHold()
	assert.GreaterOrEqual(t, calls, 1)
	assert.Less(t, longest, bound+5*time.Second, "the operator's bound, not the tenant's five minutes")
	require.Eventually(t, func() bool {
		jobs := e.jobsOf(acmeKey, "acme")
		return jobs[acmeJobs[1]]["state"] == "embedding" || jobs[acmeJobs[2]]["state"] == "embedding"
	}, 10*time.Second, 20*time.Millisecond, "the worker went on with acme's next job")
}
