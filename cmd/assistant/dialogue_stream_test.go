package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeStreamingModel is an OpenAI-compatible server streaming pieces, each
// after delay.
func fakeStreamingModel(t *testing.T, delay time.Duration, pieces ...string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Stream bool `json:"stream"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		if !in.Stream {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"model": "m", "choices": []any{map[string]any{"index": 0,
				"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": strings.Join(pieces, "")}}}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for _, piece := range pieces {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": piece}}}})
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(delay):
			}
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func useModel(t *testing.T, e *env, tenant, url string) {
	r := e.do(req{method: "PUT", path: "/api/v1/admin/llm/config/chat", tenant: tenant, body: map[string]any{
		"provider": "openai_compatible", "baseUrl": url + "/v1", "apiKey": "sk-test-000000000000", "model": "m", "version": 0, "retries": 0,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

func deltas(events []sseEvent) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.name == "delta" {
			if ev.data["reset"] == true {
				b.Reset()
			}
			b.WriteString(ev.data["text"].(string))
		}
	}
	return b.String()
}

const covered = "How long do refunds take to reach my payment method?"

func TestStreamedAndJSONRepliesAgree(t *testing.T) {
	e, _ := dialogueEnv(t)
	json1 := e.newChat("acme", nil).send(t, covered)
	events := e.newChat("acme", nil).stream(t, covered, nil)
	names := []string{}
	for i, ev := range events {
		names = append(names, ev.name)
		assert.Equal(t, fmt.Sprintf("%s:%d", events[0].data["messageId"], i+1), ev.id, "ids are <messageId>:<seq>")
	}
	assert.Equal(t, "meta", names[0])
	assert.Equal(t, []string{"sources", "done"}, names[len(names)-2:])
	for _, n := range names[1 : len(names)-2] {
		assert.Equal(t, "delta", n)
	}
	done := events[len(events)-1].data
	assert.Equal(t, sameReply(json1), sameReply(done), "the done event is the JSON reply")
	assert.Equal(t, json1["answer"], deltas(events))
}

func TestStreamResumesFromLastEventID(t *testing.T) {
	e, _ := dialogueEnv(t)
	useModel(t, e, "acme", fakeStreamingModel(t, time.Millisecond, "Refunds take ", "three working ", "days [1].").URL)
	c := e.newChat("acme", nil)
	events := c.stream(t, covered, nil)
	require.Greater(t, len(events), 4)
	assert.Equal(t, "done", events[len(events)-1].name)

	rest := c.stream(t, covered, map[string]string{"Last-Event-ID": events[1].id})
	assert.Equal(t, events[2:], rest, "the rest of the reply, byte for byte, and no new message")
	msgs := c.messages(t)
	assert.Len(t, msgs, 2, "a resume creates no message")

	t.Run("a malformed or unknown id", func(t *testing.T) {
		r := e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": "x"},
			header: map[string]string{"Last-Event-ID": "nope", "Accept": "text/event-stream"}})
		assert.Equal(t, "validation_failed", r.Code(t))
		r = e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": "x"},
			header: map[string]string{"Last-Event-ID": "msg_0192f3b4c5d67e8f9a0b1c2d3e4f5a6b:1", "Accept": "text/event-stream"}})
		assert.Equal(t, "not_found", r.Code(t))
	})
}

func TestAForbiddenWordSplitAcrossDeltasIsMasked(t *testing.T) {
	e, _ := dialogueEnv(t)
	useModel(t, e, "acme", fakeStreamingModel(t, 5*time.Millisecond,
		"Every router carries a two-year war", "ran", "ty covering hardware faults [1].").URL)
	c := e.newChat("acme", nil)
	events := c.stream(t, "Does every router carry a warranty for hardware faults?", nil)
	for _, ev := range events {
		if ev.name == "delta" {
			text := ev.data["text"].(string)
			assert.NotContains(t, text, "two-year w", "no piece of the word is released")
			assert.NotRegexp(t, `(w|wa|war|warr|warra|warran|warrant)$`, text, "no piece of the word is released")
		}
	}
	want := "Every router carries a two-year ******** covering hardware faults [1]."
	assert.Equal(t, want, deltas(events))
	assert.Equal(t, want, events[len(events)-1].data["answer"])
	assert.Equal(t, want, c.send(t, "Does every router carry a warranty for hardware faults?")["answer"], "the JSON reply agrees")
}

func TestAProviderOutageHandsOver(t *testing.T) {
	e, _ := dialogueEnv(t)
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	useModel(t, e, "acme", url)
	c := e.newChat("acme", nil)
	r := c.send(t, covered)
	assert.Equal(t, "transfer", r["responseType"])
	assert.Equal(t, "provider_unavailable", r["transferReason"])
	assert.Equal(t, true, r["shouldTransfer"])
	events := c.stream(t, covered, nil)
	done := events[len(events)-1]
	assert.Equal(t, "done", done.name)
	assert.Equal(t, "provider_unavailable", done.data["transferReason"])
}

func TestADisconnectKeepsWhatWasGeneratedAsInterrupted(t *testing.T) {
	e, _ := dialogueEnv(t)
	pieces := []string{"Refunds ", "take "}
	for range 200 {
		pieces = append(pieces, "more ")
	}
	useModel(t, e, "acme", fakeStreamingModel(t, 20*time.Millisecond, pieces...).URL)
	c := e.newChat("acme", nil)
	body, _ := json.Marshal(map[string]any{"message": covered})
	hr, err := http.NewRequest("POST", e.srv.URL+c.path("/messages"), bytes.NewReader(body))
	require.NoError(t, err)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("X-API-Key", e.root)
	hr.Header.Set("X-Tenant-Id", "acme")
	res, err := http.DefaultClient.Do(hr)
	require.NoError(t, err)
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if sc.Text() == "event: delta" {
			break
		}
	}
	require.NoError(t, res.Body.Close())

	var last map[string]any
	require.Eventually(t, func() bool {
		msgs := c.messages(t)
		last = msgs[len(msgs)-1]
		return len(msgs) == 2
	}, 10*time.Second, 20*time.Millisecond, "the reply was never stored")
	assert.Equal(t, "interrupted", last["status"])
	assert.True(t, strings.HasPrefix(last["content"].(string), "Refunds"), "what was generated is kept: %q", last["content"])
	assert.Less(t, len(last["content"].(string)), len(strings.Join(pieces, "")), "generation stopped")
}

func TestSessionsAreTenantScopedInTheRuntime(t *testing.T) {
	e, _ := dialogueEnv(t)
	c := e.newChat("acme", nil)
	other := &chat{e: e, tenant: "other", session: c.session}
	r := e.do(req{method: "POST", path: other.path("/messages"), tenant: "other", body: map[string]any{"message": "hello"}})
	assert.Equal(t, "not_found", r.Code(t))
	r = e.do(req{method: "GET", path: other.path("/events"), tenant: "other"})
	assert.Equal(t, "not_found", r.Code(t))
	r = e.do(req{method: "POST", path: "/api/v1/admin/dialogue/test", tenant: "other", body: map[string]any{"message": "hello", "sessionId": c.session}})
	assert.Equal(t, "not_found", r.Code(t))
	// The other tenant has none of acme's rules: its greeting is not fixed.
	reply := e.dryRun(t, "other", map[string]any{"message": "hello"})["reply"].(map[string]any)
	assert.NotEqual(t, "fixed", reply["responseType"])
}

func TestCompleteFlowTestWritesNothing(t *testing.T) {
	e, ids := dialogueEnv(t)
	c := e.newChat("acme", nil)
	out := e.dryRun(t, "acme", map[string]any{"message": "where is my order?", "sessionId": c.session,
		"history": []any{map[string]any{"role": "user", "content": "hi"}}, "slots": map[string]string{"tier": "gold"}})
	reply := out["reply"].(map[string]any)
	assert.Equal(t, "flow", reply["responseType"])
	assert.Equal(t, ids["orderRule"], out["ruleId"])
	assert.Equal(t, ids["flow"], out["flowId"])
	assert.Equal(t, map[string]any{"tier": "gold"}, out["slots"])
	stages := []string{}
	for _, s := range out["stages"].([]any) {
		st := s.(map[string]any)
		stages = append(stages, st["stage"].(string)+":"+st["outcome"].(string))
	}
	assert.Equal(t, []string{"auth:authenticated", "session:loaded", "handoff:bot", "input_guard:pass", "flow:none", "intent:flow_started",
		"output_guard:pass", "retrieval:skipped", "prompt:skipped", "generation:skipped", "persist:dry_run"}, stages)
	assert.Empty(t, c.messages(t), "no message stored")
	hits := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules/" + ids["orderRule"] + "/hits", tenant: "acme"}).JSON(t)
	assert.Empty(t, hits["items"], "no hit recorded")
	// The session's flow did not start: a real message starts it now.
	assert.Equal(t, "flow", c.send(t, "where is my order?")["responseType"])
}

func TestATemplateMissingARequiredValueFallsBackAtRunTime(t *testing.T) {
	e, ids := dialogueEnv(t)
	tpl := e.create(t, "acme", "/admin/prompt-templates", map[string]any{"name": "Branded", "scene": "chat", "content": map[string]any{
		"system_instruction": "You speak for {{brand}}. Evidence:\n{{evidence}}",
		"variables": []any{map[string]any{"name": "brand", "kind": "custom", "required": true},
			map[string]any{"name": "evidence", "kind": "builtin"}}}})
	r := e.do(req{method: "POST", path: "/api/v1/admin/prompt-templates/" + tpl + "/publish", tenant: "acme", body: map[string]any{"version": 1}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	out := e.dryRun(t, "acme", map[string]any{"message": covered})
	assert.Equal(t, "rag", out["reply"].(map[string]any)["responseType"], "the reply still comes, on the built-in instruction")
	prompt := stageOf(t, out, "prompt")
	assert.Equal(t, "fallback", prompt["outcome"])
	assert.Contains(t, prompt["detail"].(map[string]any)["error"], "brand")

	out = e.dryRun(t, "acme", map[string]any{"message": covered, "values": map[string]string{"brand": "Acme"}})
	assert.Equal(t, "template", stageOf(t, out, "prompt")["outcome"], "a value from the request fills it")
	assert.Equal(t, tpl, out["templateId"])
	assert.NotEqual(t, ids["template"], out["templateId"], "the newest published template of the scene is used")
}

func stageOf(t *testing.T, out map[string]any, name string) map[string]any {
	for _, s := range out["stages"].([]any) {
		if st := s.(map[string]any); st["stage"] == name {
			return st
		}
	}
	t.Fatalf("no stage %s", name)
	return nil
}
