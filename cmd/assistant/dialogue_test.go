package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orderFlow waits for an order number; a timeout asks once more (step 2)
// and either answer completes the flow at step 3.
func orderFlow() map[string]any {
	expect := map[string]any{"regex": `[A-Z]\d{4}`, "slot": "order_no", "retry_prompt": "An order number looks like A1234.", "max_retries": 2}
	return map[string]any{"name": "Order status", "steps": []any{
		map[string]any{"step_no": 1, "prompt": "Please tell me your order number.", "wait_input": true, "expect": expect,
			"default_next": map[string]any{"kind": "next", "step_no": 3}, "timeout": 1,
			"on_timeout": map[string]any{"kind": "next", "step_no": 2}},
		map[string]any{"step_no": 2, "prompt": "Are you still there? Send me your order number when you have it.", "wait_input": true,
			"expect": expect, "default_next": map[string]any{"kind": "next", "step_no": 3}},
		map[string]any{"step_no": 3, "prompt": "Thanks! Your order ships within two working days.", "wait_input": false},
	}}
}

// dialogueEnv is the FAQ tenant with a greeting rule, the order flow and
// its rule, a masked forbidden word and a published chat template.
func dialogueEnv(t *testing.T) (*env, map[string]string) {
	e, _ := labEnv(t)
	ids := map[string]string{}
	ids["greeting"] = e.create(t, "acme", "/admin/intent-rules", map[string]any{"name": "Greeting", "keywords": []string{"hello", "你好"},
		"responseType": "fixed", "fixedText": "Hello! How can I help you today?", "priority": 10})
	ids["flow"] = e.create(t, "acme", "/admin/script-flows", orderFlow())
	ids["orderRule"] = e.create(t, "acme", "/admin/intent-rules", map[string]any{"name": "Order status",
		"keywords": []string{"order status", "where is my order"}, "responseType": "flow", "flowId": ids["flow"], "priority": 5})
	ids["word"] = e.create(t, "acme", "/admin/guardrails/forbidden-words", map[string]any{"word": "warranty", "matchMode": "exact", "action": "mask"})
	ids["template"] = e.create(t, "acme", "/admin/prompt-templates", map[string]any{"name": "Chat", "scene": "chat", "content": map[string]any{
		"system_instruction": "You answer for {{tenant_name}} from this evidence only:\n{{evidence}}",
		"variables":          []any{map[string]any{"name": "tenant_name", "kind": "builtin"}, map[string]any{"name": "evidence", "kind": "builtin"}}}})
	r := e.do(req{method: "POST", path: "/api/v1/admin/prompt-templates/" + ids["template"] + "/publish", tenant: "acme", body: map[string]any{"version": 1}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return e, ids
}

// TestScriptedConversation is the "done when": every kind of reply
// in one session, each one first predicted by the complete-flow test.
func TestScriptedConversation(t *testing.T) {
	e, ids := dialogueEnv(t)
	c := e.newChat("acme", nil)
	// say predicts the reply with the complete-flow test on the session's
	// current state, then sends the message and checks they agree.
	say := func(t *testing.T, message string) map[string]any {
		t.Helper()
		predicted := e.dryRun(t, "acme", map[string]any{"message": message, "sessionId": c.session})
		reply := c.send(t, message)
		assert.Equal(t, sameReply(predicted["reply"].(map[string]any)), sameReply(reply), "the complete-flow test reproduces the reply")
		return reply
	}
	watch := c.watch(t)

	t.Run("a greeting is answered by the fixed rule", func(t *testing.T) {
		r := say(t, "Hello there")
		assert.Equal(t, "fixed", r["responseType"])
		assert.Equal(t, "Hello! How can I help you today?", r["answer"])
		assert.Equal(t, 1.0, r["confidence"])
		assert.Equal(t, false, r["shouldTransfer"])
	})
	t.Run("the order flow waits, times out once, and completes", func(t *testing.T) {
		r := say(t, "where is my order?")
		assert.Equal(t, "flow", r["responseType"])
		assert.Equal(t, "Please tell me your order number.", r["answer"])
		assert.Equal(t, map[string]any{"flowId": ids["flow"], "step": 1.0, "waiting": true}, r["flow"])

		// The sweeper fires the timeout without a message from the customer.
		var last map[string]any
		require.Eventually(t, func() bool {
			msgs := c.messages(t)
			last = msgs[len(msgs)-1]
			return strings.HasPrefix(last["content"].(string), "Are you still there?")
		}, 15*time.Second, 50*time.Millisecond, "the timeout never fired")
		assert.Equal(t, "assistant", last["role"])
		assert.Equal(t, map[string]any{"flowId": ids["flow"], "step": 2.0, "waiting": true}, last["flow"])

		r = say(t, "it is B7731")
		assert.Equal(t, "flow", r["responseType"])
		assert.Equal(t, "Thanks! Your order ships within two working days.", r["answer"])
		assert.Equal(t, false, r["flow"].(map[string]any)["waiting"])
		slots := e.do(req{method: "GET", path: c.path("/slots"), tenant: "acme"}).JSON(t)["slots"].(map[string]any)
		assert.Equal(t, "B7731", slots["order_no"], "the flow filled the slot")
	})
	t.Run("a covered question is answered with citations", func(t *testing.T) {
		r := say(t, "How long do refunds take to reach my payment method?")
		assert.Equal(t, "rag", r["responseType"])
		assert.Equal(t, false, r["shouldTransfer"], "%v", r["transferReason"])
		assert.Contains(t, r["answer"], "three working days")
		require.NotEmpty(t, r["sources"])
		assert.Equal(t, "faq.txt", r["sources"].([]any)[0].(map[string]any)["documentName"])
	})
	t.Run("an uncovered question is handed over with its reason", func(t *testing.T) {
		r := say(t, "Can I pay with cryptocurrency at the opera?")
		assert.Equal(t, "transfer", r["responseType"])
		assert.Equal(t, true, r["shouldTransfer"])
		assert.Contains(t, []any{"no_evidence", "low_score", "insufficient_evidence", "low_confidence"}, r["transferReason"])
	})
	t.Run("a forbidden word is masked in the JSON reply and in the stream", func(t *testing.T) {
		r := say(t, "Does every router carry a warranty for hardware faults?")
		assert.Equal(t, "rag", r["responseType"])
		assert.NotContains(t, strings.ToLower(r["answer"].(string)), "warranty")
		assert.Contains(t, r["answer"], "********")
		events := c.stream(t, "Does every router carry a warranty for hardware faults?", nil)
		var streamed strings.Builder
		for _, ev := range events {
			if ev.name == "delta" {
				streamed.WriteString(ev.data["text"].(string))
			}
		}
		assert.Equal(t, r["answer"], streamed.String())
		assert.Equal(t, "done", events[len(events)-1].name)
		assert.Equal(t, r["answer"], events[len(events)-1].data["answer"])
	})
	t.Run("a high-risk message is handed over at once", func(t *testing.T) {
		r := say(t, "I want to kill myself")
		assert.Equal(t, "transfer", r["responseType"])
		assert.Equal(t, "high_risk:self_harm", r["transferReason"])
		assert.Nil(t, r["confidence"])
	})

	t.Run("every reply is stored with its monitoring fields", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/sessions/" + c.session, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var rag, fixed map[string]any
		for _, m := range r.JSON(t)["messages"].([]any) {
			msg := m.(map[string]any)
			if msg["role"] != "assistant" {
				continue
			}
			mon := msg["monitoring"].(map[string]any)
			require.NotEmpty(t, mon["stages"], "every reply has its stage trace")
			switch msg["responseType"] {
			case "rag":
				rag = mon
			case "fixed":
				fixed = mon
			}
		}
		require.NotNil(t, rag)
		assert.Equal(t, ids["template"], rag["templateId"])
		assert.Equal(t, 1.0, rag["templateVersion"])
		assert.Equal(t, "offline-extractive-v1", rag["model"])
		assert.Len(t, rag["stages"], 11, "all eleven stages")
		require.NotNil(t, fixed)
		assert.Equal(t, ids["greeting"], fixed["ruleId"])
	})
	t.Run("tool traces show retrieval, slot filling and hand-offs", func(t *testing.T) {
		items := e.do(req{method: "GET", path: c.path("/tool-traces"), tenant: "acme"}).JSON(t)["items"].([]any)
		seen := map[string]bool{}
		for _, it := range items {
			seen[it.(map[string]any)["tool"].(string)] = true
		}
		assert.Equal(t, map[string]bool{"kb_search": true, "handoff": true, "slot_fill": true}, seen)
	})
	t.Run("the runtime observer saw each stage", func(t *testing.T) {
		stages := watch()
		assert.Contains(t, stages, "intent:fixed")
		assert.Contains(t, stages, "input_guard:transfer")
		assert.Contains(t, stages, "output_guard:masked")
		assert.Contains(t, stages, "persist:stored")
	})
	t.Run("rule, flow, template and guardrail monitoring count it all", func(t *testing.T) {
		get := func(path string) map[string]any {
			r := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/" + path, tenant: "acme"})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			return r.JSON(t)
		}
		byID := func(items []any, key, id string) map[string]any {
			for _, it := range items {
				if m := it.(map[string]any); m[key] == id {
					return m
				}
			}
			t.Fatalf("%s %s not in %v", key, id, items)
			return nil
		}
		rules := get("intent-rules")
		assert.Equal(t, 1.0, byID(rules["items"].([]any), "ruleId", ids["greeting"])["hits"])
		assert.Equal(t, 1.0, byID(rules["items"].([]any), "ruleId", ids["orderRule"])["hits"])
		flows := byID(get("flows")["items"].([]any), "flowId", ids["flow"])
		assert.Equal(t, 1.0, flows["starts"])
		assert.Equal(t, 1.0, flows["completions"])
		assert.Equal(t, 1.0, flows["timeouts"])
		guards := get("guardrails")
		raw, _ := json.Marshal(guards)
		assert.Contains(t, string(raw), ids["word"], "the masked word's hits")
		assert.Contains(t, string(raw), "self_harm", "the high-risk hit")
		tpl := get("prompt-templates")
		raw, _ = json.Marshal(tpl)
		assert.Contains(t, string(raw), ids["template"], "the template's renders")
	})
}

// messages lists the session's messages (first page).
func (c *chat) messages(t *testing.T) []map[string]any {
	t.Helper()
	r := c.e.do(req{method: "GET", path: c.path("/messages?limit=200"), tenant: c.tenant})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out []map[string]any
	for _, it := range r.JSON(t)["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// watch subscribes to the session's runtime observer; the returned func
// stops watching and returns "stage:outcome" for every event seen.
func (c *chat) watch(t *testing.T) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hr, err := http.NewRequestWithContext(ctx, "GET", c.e.srv.URL+c.path("/events"), nil)
	require.NoError(t, err)
	hr.Header.Set("X-API-Key", c.e.root)
	hr.Header.Set("X-Tenant-Id", c.tenant)
	res, err := http.DefaultClient.Do(hr)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	seen := make(chan []string, 1)
	ready := make(chan struct{})
	go func() {
		var out []string
		sc := bufio.NewScanner(res.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "ready":
				close(ready)
			case strings.HasPrefix(line, "data: ") && event == "stage":
				var ev map[string]any
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev) == nil {
					out = append(out, ev["stage"].(string)+":"+ev["outcome"].(string))
				}
			}
		}
		seen <- out
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the observer stream never became ready")
	}
	return func() []string {
		time.Sleep(100 * time.Millisecond)
		cancel()
		_ = res.Body.Close()
		return <-seen
	}
}
