package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/outbound"
)

// Security cases of issue 24 through the HTTP API: tenants' provider URLs
// cannot point inward, no redirect is followed, a provider's answer is not
// echoed, a stored key does not follow a new base URL, each reply has a
// trace id of its own, and tenants' regular expressions are bounded in
// what they may cost.

// withoutOutboundAllow runs the env as a deployment without an allow list
// (the harness allows loopback for the tests' fake providers).
func withoutOutboundAllow(c *config.Config) { c.OutboundAllow = outbound.AllowList{} }

// allowing runs the env with the operator's allow list list.
func allowing(t *testing.T, list string) func(*config.Config) {
	a, err := outbound.ParseAllowList(list)
	require.NoError(t, err)
	return func(c *config.Config) { c.OutboundAllow = a }
}

// recorder is a fake OpenAI-compatible provider on loopback that counts
// its calls and keeps the Authorization headers it was sent.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	auth []string
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		r.mu.Lock()
		r.auth = append(r.auth, q.Header.Get("Authorization"))
		r.mu.Unlock()
		if h != nil {
			h(w, q)
			return
		}
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"OK"}}]}`))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auth...)
}

// putChat saves the chat model config with key (the API key of the call).
func putChat(e *env, key string, body map[string]any) response {
	return e.do(req{method: "PUT", path: "/api/v1/admin/llm/config/chat", key: key, tenant: "acme", body: body})
}

func testChat(e *env, key string) map[string]any {
	r := e.do(req{method: "POST", path: "/api/v1/admin/llm/config/chat/test", key: key, tenant: "acme"})
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

func TestSecurityTenantBaseURLsCannotPointInward(t *testing.T) {
	e := newEnv(t, withoutOutboundAllow)
	_, tenantKey := e.createKey(ptr("acme"), "admin")
	refused := map[string]string{
		"http://127.0.0.1:9/v1":              "loopback",
		"http://[::1]:9/v1":                  "loopback",
		"http://[::ffff:127.0.0.1]:9/v1":     "loopback",
		"http://localhost:9/v1":              "loopback",
		"http://169.254.169.254/latest":      "link-local",
		"http://[fe80::1]/v1":                "link-local",
		"http://10.0.0.8/v1":                 "private",
		"http://172.16.0.1/v1":               "private",
		"http://192.168.1.1/v1":              "private",
		"http://100.64.0.1/v1":               "carrier-grade NAT",
		"http://0.0.0.0:8080/v1":             "unspecified",
		"http://[fd00::1]/v1":                "unique local",
		"http://224.0.0.1/v1":                "multicast",
		"https://api.example.com/v1?":        "query",
		"https://api.example.com/v1?x=/etc":  "query",
		"https://api.example.com/v1#":        "fragment",
		"https://user:pw@api.example.com/v1": "credentials",
	}
	for u, why := range refused {
		for _, path := range []string{"/api/v1/admin/llm/config/chat", "/api/v1/admin/embedding/config"} {
			t.Run(path+" "+u, func(t *testing.T) {
				r := e.do(req{method: "PUT", path: path, key: tenantKey, tenant: "acme", body: map[string]any{
					"provider": "openai_compatible", "baseUrl": u, "model": "m", "version": 0}})
				require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
				assert.Equal(t, "validation_failed", r.Code(t))
				msg, ok := fieldErrors(t, r)["/baseUrl"]
				require.True(t, ok, "%s", r.Body)
				assert.Contains(t, msg, why)
			})
		}
	}
}

// A configuration stored as a tenant's (before this check, or by name) is
// still refused when it is called: at dial time, after DNS, in the test
// and in every background use of the same model.
func TestSecurityInternalAddressesAreRefusedAtDialTime(t *testing.T) {
	e := newEnv(t, withoutOutboundAllow)
	inside := newRecorder(t, nil)
	require.Equal(t, http.StatusOK, putChat(e, "", map[string]any{
		"provider": "openai_compatible", "baseUrl": inside.srv.URL + "/v1", "model": "m", "version": 0}).Status)
	// As if a tenant had saved it: not set by a platform key.
	_, err := e.db.Exec(t.Context(), "UPDATE llm_configs SET set_by_platform = false WHERE tenant_id = 'acme'")
	require.NoError(t, err)
	e.app.invalidations.Drop(domain.ConfigModels, "acme")
	for _, base := range []string{inside.srv.URL + "/v1", strings.Replace(inside.srv.URL, "127.0.0.1", "localhost", 1) + "/v1"} {
		_, err := e.db.Exec(t.Context(), "UPDATE llm_configs SET base_url = $1 WHERE tenant_id = 'acme'", base)
		require.NoError(t, err)
		e.app.invalidations.Drop(domain.ConfigModels, "acme")
		res := testChat(e, "")
		assert.Equal(t, false, res["ok"])
		assert.Contains(t, res["error"], "loopback address, which is not allowed", base)
	}
	assert.Empty(t, inside.calls(), "no request reached the internal server")
}

// The operator decides what is inside: its allow list lets tenants reach a
// named internal host, and a platform key may point a tenant at an
// internal runner, which a tenant key's later save takes back.
func TestSecurityAllowListAndPlatformException(t *testing.T) {
	inside := newRecorder(t, nil)
	port := inside.srv.URL[strings.LastIndex(inside.srv.URL, ":")+1:]

	t.Run("allow-listed host:port", func(t *testing.T) {
		e := newEnv(t, allowing(t, "127.0.0.1:"+port))
		_, tenantKey := e.createKey(ptr("acme"), "admin")
		r := putChat(e, tenantKey, map[string]any{"provider": "openai_compatible", "baseUrl": inside.srv.URL + "/v1", "model": "m", "version": 0})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, true, testChat(e, tenantKey)["ok"])
		r = putChat(e, tenantKey, map[string]any{"provider": "openai_compatible", "baseUrl": "http://127.0.0.1:1/v1", "model": "m", "version": 1})
		assert.Equal(t, http.StatusBadRequest, r.Status, "another port is not allowed: %s", r.Body)
	})
	t.Run("platform key", func(t *testing.T) {
		e := newEnv(t, withoutOutboundAllow)
		_, tenantKey := e.createKey(ptr("acme"), "admin")
		r := putChat(e, "", map[string]any{"provider": "ollama", "baseUrl": inside.srv.URL, "model": "llama3", "version": 0})
		require.Equal(t, http.StatusOK, r.Status, "the operator may point a tenant at a local runner: %s", r.Body)
		before := len(inside.calls())
		testChat(e, tenantKey)
		assert.Greater(t, len(inside.calls()), before, "the tenant's own calls use the operator's configuration")
		r = putChat(e, tenantKey, map[string]any{"provider": "ollama", "baseUrl": inside.srv.URL, "model": "llama3", "temperature": 0.5, "version": 1})
		require.Equal(t, http.StatusBadRequest, r.Status, "saved by a tenant key, it is the tenant's: %s", r.Body)
		assert.Contains(t, fieldErrors(t, r)["/baseUrl"], "loopback")
	})
}

// A redirect is not followed, and what the far side answered is not
// echoed beyond a JSON error message.
func TestSecurityRedirectsAndProviderBodies(t *testing.T) {
	e := newEnv(t, withoutOutboundAllow)
	target := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"items":["internal"]}`)) })
	redirect := newRecorder(t, func(w http.ResponseWriter, q *http.Request) {
		http.Redirect(w, q, target.srv.URL+"/api/v1/admin/api-keys", http.StatusFound)
	})
	page := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte("INTERNAL-PAGE: admin console, build 4.2, db=primary"))
	})
	version := 0.0
	for name, tc := range map[string]struct {
		base string
		want string
	}{
		"redirect":   {redirect.srv.URL + "/v1", "HTTP 302"},
		"plain body": {page.srv.URL + "/v1", "HTTP 400"},
	} {
		t.Run(name, func(t *testing.T) {
			// A platform key, so that the loopback fakes are reachable at all.
			r := putChat(e, "", map[string]any{"provider": "openai_compatible", "baseUrl": tc.base, "model": "m", "version": version})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			version = r.JSON(t)["version"].(float64)
			res := testChat(e, "")
			assert.Equal(t, false, res["ok"])
			assert.Contains(t, res["error"], tc.want)
			assert.NotContains(t, res["error"], "INTERNAL-PAGE")
			assert.NotContains(t, res["error"], "internal")
		})
	}
	assert.Empty(t, target.calls(), "the redirect was not followed")
}

// A tenant admin cannot send a key the operator set to a host of its own
// by changing the base URL alone; keys are sealed at rest.
func TestSecurityKeyDoesNotFollowANewBaseURL(t *testing.T) {
	e := newEnv(t) // loopback allowed: the tenant's own host is a fake too
	const platformKey = "sk-platform-set-0123456789abcdef"
	provider := newRecorder(t, nil)
	attacker := newRecorder(t, nil)
	_, tenantKey := e.createKey(ptr("acme"), "admin")
	r := putChat(e, "", map[string]any{"provider": "openai_compatible", "baseUrl": provider.srv.URL + "/v1", "apiKey": platformKey, "model": "m", "version": 0})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	var stored string
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT api_key FROM llm_configs WHERE tenant_id = 'acme'").Scan(&stored))
	assert.True(t, strings.HasPrefix(stored, "sealed:v1:"), "sealed at rest")
	assert.NotContains(t, stored, platformKey)
	assert.Equal(t, true, testChat(e, tenantKey)["ok"])
	assert.Equal(t, "Bearer "+platformKey, provider.calls()[0], "the sealed key opens for the calls")

	// Same URL, no apiKey: the key stays.
	r = putChat(e, tenantKey, map[string]any{"provider": "openai_compatible", "baseUrl": provider.srv.URL + "/v1", "model": "m2", "version": 1})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, true, r.JSON(t)["apiKeySet"])
	// Another URL, no apiKey: the key is dropped.
	r = putChat(e, tenantKey, map[string]any{"provider": "openai_compatible", "baseUrl": attacker.srv.URL + "/v1", "model": "m2", "version": 2})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, false, r.JSON(t)["apiKeySet"])
	testChat(e, tenantKey)
	require.NotEmpty(t, attacker.calls())
	for _, auth := range attacker.calls() {
		assert.NotContains(t, auth, platformKey)
	}

	// A key stored in clear by an earlier version is sealed at start.
	_, err := e.db.Exec(t.Context(), "UPDATE llm_configs SET api_key = 'sk-legacy-clear-0123456789' WHERE tenant_id = 'acme'")
	require.NoError(t, err)
	n, err := e.app.store.ResealProviderKeys(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT api_key FROM llm_configs WHERE tenant_id = 'acme'").Scan(&stored))
	assert.True(t, strings.HasPrefix(stored, "sealed:v1:"))
	e.app.invalidations.Drop(domain.ConfigModels, "acme")
	testChat(e, tenantKey)
	calls := attacker.calls()
	assert.Equal(t, "Bearer sk-legacy-clear-0123456789", calls[len(calls)-1])
}

// Two replies in one client trace get trace ids of their own, and the
// trace lookup finds each.
func TestSecurityReplyTraceIDsAreUniqueUnderAClientTrace(t *testing.T) {
	e := newEnv(t)
	c := e.newChat("acme", nil)
	const parent = "4bf92f3577b34da6a3ce929d0e0e4736"
	seen := map[string]bool{}
	for _, msg := range []string{"Hello there", "Where is the nearest store?"} {
		r := e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": msg},
			header: map[string]string{"traceparent": "00-" + parent + "-00f067aa0ba902b7-01"}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		id := r.JSON(t)["traceId"].(string)
		assert.NotEqual(t, "trc_"+parent, id)
		assert.False(t, seen[id], "a trace id shared by two replies")
		seen[id] = true
		tr := e.do(req{method: "GET", path: "/api/v1/admin/conversations/traces/" + id, tenant: "acme"})
		require.Equal(t, http.StatusOK, tr.Status, "%s", tr.Body)
		assert.Contains(t, string(tr.Body), r.JSON(t)["messageId"].(string), "the lookup finds this reply")
	}
}

// Expired idempotency records (with the answers kept in them) are purged
// by the service's ticker, which purges once when it starts, not only
// now and then on a claim.
func TestSecurityExpiredIdempotencyRecordsArePurgedOnASchedule(t *testing.T) {
	e := newEnv(t)
	_, err := e.db.Exec(t.Context(), `INSERT INTO idempotency_keys (scope, idem_key, claim_token, state, status, body, created_at, locked_until)
		VALUES ('k|acme|POST /api/v1/chat/sessions', 'old', 't', 'done', 201, '{"old":true}', now() - interval '25 hours', now() - interval '25 hours'),
		       ('k|acme|POST /api/v1/chat/sessions', 'fresh', 't', 'done', 201, '{}', now(), now())`)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { e.app.server.RunIdempotencyPurge(ctx); close(done) }()
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM idempotency_keys WHERE idem_key = 'old'").Scan(&n))
		return n == 0
	}, 5*time.Second, 10*time.Millisecond, "the expired record was never purged")
	cancel()
	<-done
	var fresh int
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM idempotency_keys WHERE idem_key = 'fresh'").Scan(&fresh))
	assert.Equal(t, 1, fresh, "a record within the window stays")
}

// The embedding configuration follows the same rule: the operator's
// platform key may point a tenant at an internal embedder, and the index
// worker's and the test's calls (the background ones) use it; a tenant's
// configuration at the same address is refused at dial time.
func TestSecurityEmbeddingPlatformExceptionAndDialTimeRefusal(t *testing.T) {
	e := newEnv(t, withoutOutboundAllow)
	var calls atomic.Int64
	const key = "sk-embed-0123456789abcdef"
	srv := fakeOpenAI(t, key, &calls)
	r := e.do(req{method: "PUT", path: "/api/v1/admin/embedding/config", tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": srv.URL + "/v1", "apiKey": key, "model": "text-embedding-3-small", "version": 0}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	test := e.do(req{method: "POST", path: "/api/v1/admin/embedding/test", tenant: "acme"}).JSON(t)
	assert.Equal(t, true, test["ok"], "%v", test)

	_, err := e.db.Exec(t.Context(), "UPDATE embedding_configs SET set_by_platform = false WHERE tenant_id = 'acme'")
	require.NoError(t, err)
	e.app.invalidations.Drop(domain.ConfigEmbedding, "acme")
	before := calls.Load()
	test = e.do(req{method: "POST", path: "/api/v1/admin/embedding/test", tenant: "acme"}).JSON(t)
	assert.Equal(t, false, test["ok"])
	assert.Contains(t, test["error"], "loopback address, which is not allowed")
	assert.Equal(t, before, calls.Load(), "nothing reached the embedder")
}

// A tenant's regular expressions cannot cost the service seconds or
// gigabytes (issue 24, bounded regex cost): the 490-byte pattern that took
// 42 s of CPU on one message is refused wherever a tenant writes one
// (intent rules, flow steps, guardrail rules, slot definitions), with the
// pattern and the bound named, while a legitimate pattern works end to
// end.
func TestSecurityRegexBombsAreRefused(t *testing.T) {
	e := newEnv(t)
	bomb := strings.Repeat(`.{0,999}`, 61) + `\d`
	refused := func(t *testing.T, r response, field string) {
		t.Helper()
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		assert.Equal(t, "application/problem+json", r.Header.Get("Content-Type"))
		assert.Equal(t, "validation_failed", r.Code(t))
		msg, ok := fieldErrors(t, r)[field]
		require.True(t, ok, "%s", r.Body)
		assert.Contains(t, msg, "`.{0,999}.{0,999}")
		assert.Contains(t, msg, "the counted repeat {0,999} counts to 999, over the limit of 100")
	}
	t.Run("intent rule", func(t *testing.T) {
		refused(t, e.do(req{method: "POST", path: intentRulesPath, tenant: "acme", body: map[string]any{
			"name": "Bomb", "patterns": []string{bomb}, "responseType": "fixed", "fixedText": "x"}}), "/patterns/0")
	})
	t.Run("flow step", func(t *testing.T) {
		refused(t, e.do(req{method: "POST", path: "/api/v1/admin/script-flows", tenant: "acme", body: map[string]any{
			"name": "Bomb", "steps": []any{map[string]any{"step_no": 1, "prompt": "Your order number?", "wait_input": true,
				"expect": map[string]any{"regex": bomb}}}}}), "/steps/0/expect/regex")
	})
	t.Run("guardrail rule", func(t *testing.T) {
		refused(t, e.do(req{method: "POST", path: rulesURL, tenant: "acme", body: map[string]any{
			"name": "Bomb", "kind": "regex", "pattern": bomb, "action": "transfer"}}), "/pattern")
	})
	t.Run("slot definition", func(t *testing.T) {
		refused(t, e.do(req{method: "POST", path: slotsPath, tenant: "acme", body: map[string]any{
			"key": "order_no", "label": "Order", "type": "string", "pattern": bomb}}), "/pattern")
	})

	t.Run("a legitimate pattern still answers", func(t *testing.T) {
		e.createRule("acme", map[string]any{"name": "Order number", "patterns": []string{`order\s*#?\d{6,}`},
			"responseType": "fixed", "fixedText": "Your order is on its way."})
		c := e.newChat("acme", nil)
		start := time.Now()
		r := c.send(t, strings.Repeat("请问 ", 1000)+"order #123456")
		assert.Equal(t, "Your order is on its way.", r["answer"])
		assert.Less(t, time.Since(start), 5*time.Second)

		// A flow step's regex is compiled once for a simulation's answers
		// (as many as the 64 KB body holds), not once per answer.
		flowID := e.create(t, "acme", "/admin/script-flows", map[string]any{"name": "Order", "steps": []any{
			map[string]any{"step_no": 1, "prompt": "Your order number?", "wait_input": true,
				"expect": map[string]any{"regex": `(?:order\s*)?(\d{8})\s*$`, "slot": "order", "max_retries": 10}},
			map[string]any{"step_no": 2, "prompt": "Thanks."},
		}})
		inputs := make([]string, 100)
		for i := range inputs {
			inputs[i] = strings.Repeat("my order ", 60) + "order 1234567x" // the body holds 64 KB
		}
		start = time.Now()
		sim := e.do(req{method: "POST", path: "/api/v1/admin/script-flows/" + flowID + "/simulate", tenant: "acme",
			body: map[string]any{"inputs": inputs}})
		require.Equal(t, http.StatusOK, sim.Status, "%s", sim.Body)
		assert.Less(t, time.Since(start), 5*time.Second)
	})
}
