package main

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// watchStream is one open runtime-observer stream.
type watchStream struct {
	cancel context.CancelFunc
	res    *http.Response
}

// close ends the stream from the client's side.
func (w watchStream) close() {
	w.cancel()
	_ = w.res.Body.Close()
}

// openWatch opens c's observer stream with key and waits for its ready
// event; a refusal's status comes back with the zero stream (closed).
func (c *chat) openWatch(t *testing.T, key string) (w watchStream, status int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hr, err := http.NewRequestWithContext(ctx, "GET", c.e.srv.URL+c.path("/events"), nil)
	require.NoError(t, err)
	hr.Header.Set("X-API-Key", key)
	hr.Header.Set("X-Tenant-Id", c.tenant)
	res, err := http.DefaultClient.Do(hr)
	require.NoError(t, err)
	if res.StatusCode != http.StatusOK {
		_ = res.Body.Close()
		cancel()
		return watchStream{}, res.StatusCode
	}
	w = watchStream{cancel: cancel, res: res}
	t.Cleanup(w.close)
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "event: ready") {
			return w, res.StatusCode
		}
	}
	t.Fatalf("the stream ended before it was ready: %v", sc.Err())
	return w, 0
}

// An API key has at most its tenant's quota of event streams open at
// once: one more, of any kind, is 429 quota_exceeded and stores nothing;
// another key is not held back; a closed stream frees its place.
func TestEventStreamsPerKeyAreCapped(t *testing.T) {
	e := newEnv(t, withQuotas(map[domain.Quota]int64{domain.QuotaStreamsPerKey: 2}))
	_, key := e.createKey(ptr("acme"), "chat")
	_, other := e.createKey(ptr("acme"), "chat")
	c := e.newChat("acme", nil)

	first, status := c.openWatch(t, key)
	require.Equal(t, http.StatusOK, status)
	_, status = c.openWatch(t, key)
	require.Equal(t, http.StatusOK, status)

	r := e.do(req{method: "GET", path: c.path("/events"), key: key, tenant: "acme"})
	q := quotaRefusal(t, r, http.StatusTooManyRequests, domain.QuotaStreamsPerKey)
	assert.EqualValues(t, 2, q["limit"])
	assert.EqualValues(t, 2, q["used"])
	r = e.do(req{method: "POST", path: c.path("/messages"), key: key, tenant: "acme",
		body: map[string]any{"message": "hello"}, header: map[string]string{"Accept": "text/event-stream"}})
	quotaRefusal(t, r, http.StatusTooManyRequests, domain.QuotaStreamsPerKey)
	assert.Empty(t, c.messages(t), "a refused stream stores no message")
	r = e.do(req{method: "POST", path: c.path("/messages"), key: key, tenant: "acme", body: map[string]any{"message": "hello"}})
	assert.Equal(t, http.StatusOK, r.Status, "a JSON reply is no stream: %s", r.Body)

	_, status = c.openWatch(t, other)
	assert.Equal(t, http.StatusOK, status, "another key has its own")
	assert.Equal(t, map[string]any{"limit": 2.0, "used": 2.0}, e.usage("", "acme")["streamsPerKey"])

	first.close()
	require.Eventually(t, func() bool {
		_, status := c.openWatch(t, key)
		return status == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "a closed stream frees its place")
	_, status = c.openWatch(t, key)
	require.Equal(t, http.StatusTooManyRequests, status, "two open again")

	e.setQuotas("acme", map[string]any{"streamsPerKey": 3})
	_, status = c.openWatch(t, key)
	assert.Equal(t, http.StatusOK, status, "a platform key's override raises the cap")
}
