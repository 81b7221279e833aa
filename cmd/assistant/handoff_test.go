package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sessionMessages follows a session's event stream and keeps the content
// of every `message` event.
type sessionMessages struct {
	mu   sync.Mutex
	seen []map[string]any
}

func (s *sessionMessages) contents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.seen {
		out = append(out, m["role"].(string)+":"+m["content"].(string))
	}
	return out
}

// followMessages opens the session's event stream (as the customer's
// widget or the agent's console would) until the test ends.
func (c *chat) followMessages(t *testing.T) *sessionMessages {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	hr, err := http.NewRequestWithContext(ctx, "GET", c.e.srv.URL+c.path("/events"), nil)
	require.NoError(t, err)
	hr.Header.Set("X-API-Key", c.e.root)
	hr.Header.Set("X-Tenant-Id", c.tenant)
	res, err := http.DefaultClient.Do(hr)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	out := &sessionMessages{}
	ready := make(chan struct{})
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "ready":
				close(ready)
			case strings.HasPrefix(line, "data: ") && event == "message":
				var m map[string]any
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m) == nil {
					out.mu.Lock()
					out.seen = append(out.seen, m)
					out.mu.Unlock()
				}
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream never became ready")
	}
	return out
}

// agent acts on the hand-off of a chat.
func (c *chat) agent(step, agentID string, extra map[string]any) response {
	body := map[string]any{"agentId": agentID}
	for k, v := range extra {
		body[k] = v
	}
	return c.e.do(req{method: "POST", path: "/api/v1/admin/handoffs/" + c.session + "/" + step, tenant: c.tenant, body: body})
}

// queue lists the tenant's waiting sessions' ids, oldest first.
func (e *env) queue(t *testing.T, tenant, query string) []map[string]any {
	t.Helper()
	r := e.do(req{method: "GET", path: "/api/v1/admin/handoffs" + query, tenant: tenant})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out []map[string]any
	for _, it := range r.JSON(t)["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func queuedIDs(items []map[string]any) []string {
	var ids []string
	for _, it := range items {
		ids = append(ids, it["handoff"].(map[string]any)["sessionId"].(string))
	}
	return ids
}

// TestHumanTakeover is issue 26 through the HTTP API: a hand-off puts the
// session in the agents' queue and silences the bot; one agent claims it,
// replies on the customer's event stream, notes, releases; the log says
// who did what.
func TestHumanTakeover(t *testing.T) {
	e := newEnv(t)
	first := e.newChat("acme", nil)
	second := e.newChat("acme", nil)

	r := first.post(t, "Can I talk to a human please?")
	assert.Equal(t, true, r["shouldTransfer"])
	assert.Equal(t, "customer_request", r["transferCode"])
	assert.Equal(t, "waiting_for_agent", r["handoffState"])
	r = second.post(t, "转人工")
	assert.Equal(t, "waiting_for_agent", r["handoffState"])
	assert.Contains(t, r["answer"], "人工")

	t.Run("the queue lists waiting sessions oldest first, paginated", func(t *testing.T) {
		items := e.queue(t, "acme", "")
		assert.Equal(t, []string{first.session, second.session}, queuedIDs(items))
		h := items[0]["handoff"].(map[string]any)
		assert.Equal(t, "customer_request", h["reason"])
		assert.Equal(t, "en", h["language"])
		assert.Equal(t, "zh", items[1]["handoff"].(map[string]any)["language"])
		assert.NotEmpty(t, items[0]["lastMessages"])
		page := e.do(req{method: "GET", path: "/api/v1/admin/handoffs?limit=1", tenant: "acme"}).JSON(t)
		require.NotNil(t, page["nextCursor"])
		next := e.queue(t, "acme", "?limit=1&cursor="+page["nextCursor"].(string))
		assert.Equal(t, []string{second.session}, queuedIDs(next))
		assert.Empty(t, e.queue(t, "other", ""), "another tenant's queue is its own")
	})

	watch := first.followMessages(t)
	t.Run("while waiting the bot is silent but for the waiting text", func(t *testing.T) {
		r := first.post(t, "How long do refunds take?")
		assert.Contains(t, r["answer"], "A member of our team")
		r = first.post(t, "Hello?")
		assert.Equal(t, "", r["answer"])
		assert.Equal(t, "waiting_for_agent", r["handoffState"])
		var contents []string
		for _, m := range first.messages(t) {
			contents = append(contents, m["role"].(string)+":"+m["content"].(string))
		}
		assert.Equal(t, "user:Hello?", contents[len(contents)-1], "the silent turn stored the customer's message and no reply")
		require.Eventually(t, func() bool { return len(watch.contents()) >= 2 }, 10*time.Second, 10*time.Millisecond)
		assert.Equal(t, []string{"user:How long do refunds take?", "user:Hello?"}, watch.contents(), "the agent's console sees the customer")
	})

	t.Run("one agent claims; a second claim is 409 handoff_claimed", func(t *testing.T) {
		codes := make(chan int, 2)
		var wg sync.WaitGroup
		for _, a := range []string{"agent-dana", "agent-li"} {
			wg.Go(func() { codes <- first.agent("claim", a, nil).Status })
		}
		wg.Wait()
		close(codes)
		var got []int
		for c := range codes {
			got = append(got, c)
		}
		assert.ElementsMatch(t, []int{http.StatusOK, http.StatusConflict}, got)
		late := first.agent("claim", "agent-late", nil)
		require.Equal(t, http.StatusConflict, late.Status)
		assert.Equal(t, "handoff_claimed", late.Code(t))
		assert.Equal(t, []string{second.session}, queuedIDs(e.queue(t, "acme", "")))
		assert.Equal(t, []string{first.session}, queuedIDs(e.queue(t, "acme", "?state=with_agent")))
	})
	holder := e.queue(t, "acme", "?state=with_agent")[0]["handoff"].(map[string]any)["agentId"].(string)
	other := map[string]string{"agent-dana": "agent-li", "agent-li": "agent-dana"}[holder]

	t.Run("the agent's reply reaches the customer's event stream and the message list", func(t *testing.T) {
		r := first.agent("messages", other, map[string]any{"text": "Not mine."})
		require.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "handoff_state", r.Code(t))
		r = first.agent("messages", holder, map[string]any{"text": "Hi, I am here to help."})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		assert.Equal(t, "agent", r.JSON(t)["role"])
		require.Eventually(t, func() bool { return len(watch.contents()) >= 3 }, 10*time.Second, 10*time.Millisecond)
		assert.Equal(t, "agent:Hi, I am here to help.", watch.contents()[2])
		msgs := first.messages(t)
		assert.Equal(t, "agent", msgs[len(msgs)-1]["role"])
		reply := first.post(t, "Thanks!")
		assert.Equal(t, "", reply["answer"], "with an agent the bot stays silent")
		assert.Equal(t, "with_agent", reply["handoffState"])
	})

	t.Run("notes, release, and the log", func(t *testing.T) {
		r := first.agent("notes", holder, map[string]any{"text": "Customer wants a refund; checking."})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		r = first.agent("release", other, nil)
		require.Equal(t, http.StatusConflict, r.Status)
		r = first.agent("release", holder, nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "bot", r.JSON(t)["state"])
		reply := first.post(t, "hello")
		assert.NotEqual(t, "", reply["answer"], "released, the bot answers again")
		for _, m := range first.messages(t) {
			assert.NotContains(t, m["content"], "checking", "notes are never shown to the customer")
		}
		log := e.do(req{method: "GET", path: "/api/v1/admin/handoffs/" + first.session + "/events", tenant: "acme"})
		require.Equal(t, http.StatusOK, log.Status)
		var kinds []string
		for _, it := range log.JSON(t)["items"].([]any) {
			ev := it.(map[string]any)
			kinds = append(kinds, ev["kind"].(string)+":"+ev["actor"].(string))
		}
		// The tenant has no documents: the bot, answering again, hands
		// over again (a new request).
		assert.Equal(t, []string{"requested:bot", "claimed:" + holder, "replied:" + holder, "note:" + holder, "released:" + holder,
			"requested:bot"}, kinds)
	})

	t.Run("resolve closes with an outcome; the state survives a restart", func(t *testing.T) {
		require.Equal(t, http.StatusOK, second.agent("claim", "agent-dana", nil).Status)
		r := second.agent("resolve", "agent-dana", map[string]any{"outcome": "refund_issued"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "resolved", r.JSON(t)["state"])
		s := e.do(req{method: "GET", path: second.path(""), tenant: "acme"})
		assert.Equal(t, "resolved", s.JSON(t)["handoffState"], "read back from PostgreSQL")
		r = second.agent("resolve", "agent-dana", map[string]any{"outcome": "again"})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "handoff_state", r.Code(t))
	})
	t.Run("an unknown session is 404", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/handoffs/ses_0192f3b4c5d67e8f9a0b1c2d3e4f5a6b/claim", tenant: "acme",
			body: map[string]any{"agentId": "agent-dana"}})
		assert.Equal(t, http.StatusNotFound, r.Status)
	})
}

// TestHandoffTexts: the tenant's waiting and fallback texts, in the
// customer's language, the fallback once the tenant's wait passed.
func TestHandoffTexts(t *testing.T) {
	e := newEnv(t)
	cur := e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "acme"}).JSON(t)
	body := map[string]any{}
	for _, k := range []string{"transferConfidenceThreshold", "minHits", "minTopScore", "minEvidenceTokens", "retrievalScoreThreshold",
		"frontend_base_url", "kb_vector_log_enabled", "kb_vector_log_path", "version"} {
		body[k] = cur[k]
	}
	body["handoffWaiting"] = map[string]any{"en": nil, "zh": "请稍等，同事马上来。"}
	body["handoffFallback"] = map[string]any{"en": nil, "zh": "同事都在忙，请留言。"}
	body["handoffWaitSeconds"] = 60
	r := e.do(req{method: "PUT", path: "/api/v1/admin/settings", tenant: "acme", body: body})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.EqualValues(t, 60, r.JSON(t)["handoffWaitSeconds"])

	c := e.newChat("acme", nil)
	c.post(t, "我要人工客服")
	assert.Equal(t, "请稍等，同事马上来。", c.post(t, "在吗")["answer"])
	assert.Equal(t, "", c.post(t, "在吗")["answer"], "the waiting text is said once")
	_, err := e.db.Exec(context.Background(), "UPDATE chat_sessions SET handoff_requested_at = now() - interval '2 minutes' WHERE id = $1", c.session)
	require.NoError(t, err)
	assert.Equal(t, "同事都在忙，请留言。", c.post(t, "在吗")["answer"])
	assert.Equal(t, "", c.post(t, "在吗")["answer"], "the fallback text is said once")
	s := e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "acme"}).JSON(t)
	assert.Equal(t, map[string]any{"en": nil, "zh": "同事都在忙，请留言。"}, s["handoffFallback"])
}

// TestHandoffAcrossReplicas: the customer watches on one replica, the
// agent works on another; the agent sees the customer's message and the
// customer the agent's reply (LISTEN/NOTIFY carries both).
func TestHandoffAcrossReplicas(t *testing.T) {
	one := newEnv(t)
	two := startEnv(t, one.cfg)
	two.root = one.root
	one.waitReplicasListening(2)
	customer := one.newChat("acme", nil)
	agentSide := &chat{e: two, tenant: "acme", session: customer.session}
	customer.post(t, "I want to talk to a human")
	onAgent := agentSide.followMessages(t)
	onCustomer := customer.followMessages(t)
	customer.post(t, "My parcel never came.")
	require.Eventually(t, func() bool { return len(onAgent.contents()) == 1 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"user:My parcel never came."}, onAgent.contents())
	require.Equal(t, http.StatusOK, agentSide.agent("claim", "agent-dana", nil).Status)
	r := agentSide.agent("messages", "agent-dana", map[string]any{"text": "Let me check that for you."})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Eventually(t, func() bool { return len(onCustomer.contents()) == 2 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"user:My parcel never came.", "agent:Let me check that for you."}, onCustomer.contents())
}
