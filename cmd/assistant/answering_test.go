package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// newcomerFAQ is what a newcomer uploads first: one fact a line, English
// and Chinese, with a Markdown heading.
const newcomerFAQ = "# Returns\n" +
	"You can return most items within 30 days of delivery.\n" +
	"Refunds are paid to the original payment method within 5 working days.\n" +
	"# Delivery\n" +
	"Standard delivery takes 3 to 5 working days and is free above 75 EUR.\n" +
	"We deliver to Germany, Austria and the Netherlands.\n" +
	"# Orders\n" +
	"You can cancel an order free of charge until it has been dispatched.\n" +
	"All furniture carries a 3-year warranty; LED lamps are covered for 5 years.\n" +
	"退货需在签收后30天内申请。\n" +
	"客服热线的服务时间为每天9:00至21:00。\n"

// The "done when" of answer quality, as a newcomer meets it: upload a FAQ,
// open a chat session, ask, on settings nobody touched.
func TestNewcomerGetsAnswersAndHonestHandoffs(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(newcomerFAQ)})
	require.Equal(t, "succeeded", job["state"], "%v", job)

	answered := []struct{ question, quote string }{
		{"How long do I have to return an item?", "You can return most items within 30 days of delivery."},
		{"When will my refund be paid?", "Refunds are paid to the original payment method within 5 working days."},
		{"Which countries do you deliver to?", "We deliver to Germany, Austria and the Netherlands."},
		{"签收后多少天内可以退货？", "退货需在签收后30天内申请。"},
		{"客服热线的服务时间是几点到几点？", "客服热线的服务时间为每天9:00至21:00。"},
	}
	for _, a := range answered {
		t.Run("answered: "+a.question, func(t *testing.T) {
			r := e.newChat("acme", nil).send(t, a.question)
			require.Equal(t, false, r["shouldTransfer"], "%v: %v", r["transferReason"], r["answer"])
			assert.Equal(t, "rag", r["responseType"])
			assert.True(t, strings.HasPrefix(r["answer"].(string), a.quote), "quotes the sentence that answers: %q", r["answer"])
			sources := r["sources"].([]any)
			require.NotEmpty(t, sources)
			src := sources[0].(map[string]any)
			assert.Equal(t, a.quote, src["quote"], "the citation holds the quoted sentence")
			assert.Equal(t, "faq.txt", src["documentName"])
		})
	}
	t.Run("in one conversation, a self-contained question is answered from its own words", func(t *testing.T) {
		c := e.newChat("acme", nil)
		require.Equal(t, false, c.send(t, "How long is the warranty on LED lamps?")["shouldTransfer"])
		r := c.send(t, "Can I cancel my order?") // short: once expanded with the question before it
		require.Equal(t, false, r["shouldTransfer"], "%v", r["transferReason"])
		assert.True(t, strings.HasPrefix(r["answer"].(string), "You can cancel an order"), "not the previous topic: %q", r["answer"])
	})
	t.Run("in one conversation, a short question nothing answers is not answered from the one before", func(t *testing.T) {
		c := e.newChat("acme", nil)
		require.Equal(t, false, c.send(t, "How long is the warranty on LED lamps?")["shouldTransfer"])
		for _, q := range []string{"Do you accept bitcoin?", "And to Canada?"} {
			r := c.send(t, q) // short: tried again with the question before it
			assert.Equal(t, true, r["shouldTransfer"], "%s: answered %q", q, r["answer"])
		}
	})
	t.Run("in one conversation, a short follow-up is answered with the question before it", func(t *testing.T) {
		c := e.newChat("acme", nil)
		require.Equal(t, false, c.send(t, "Which countries do you deliver to?")["shouldTransfer"])
		r := c.send(t, "And Austria?")
		require.Equal(t, false, r["shouldTransfer"], "%v", r["transferReason"])
		assert.True(t, strings.HasPrefix(r["answer"].(string), "We deliver to Germany, Austria"), "%q", r["answer"])
	})
	t.Run("a heading travels with the lines under it", func(t *testing.T) {
		r := e.newChat("acme", nil).send(t, "Which countries do you deliver to?")
		src := r["sources"].([]any)[0].(map[string]any)
		assert.Equal(t, []any{"Delivery"}, src["headingPath"])
	})
	handedOff := []struct{ question, text string }{
		{"Do you accept bitcoin?", domain.DefaultHandoffMessageEN},
		{"Do you deliver to Canada?", domain.DefaultHandoffMessageEN},
		{"你们支持比特币付款吗？", domain.DefaultHandoffMessageZH},
	}
	for _, h := range handedOff {
		t.Run("handed off in the customer's language: "+h.question, func(t *testing.T) {
			r := e.newChat("acme", nil).send(t, h.question)
			require.Equal(t, true, r["shouldTransfer"], "answered %q", r["answer"])
			assert.Equal(t, "transfer", r["responseType"])
			assert.Contains(t, []any{"no_evidence", "low_score", "low_answerability", "insufficient_evidence", "low_confidence"}, r["transferReason"])
			assert.Equal(t, h.text, r["answer"])
		})
	}
	t.Run("a tenant's own hand-off text, per language", func(t *testing.T) {
		s := e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "acme"}).JSON(t)
		s["handoffMessages"] = map[string]any{"en": "A colleague will take over in a moment.", "zh": nil}
		for _, k := range []string{"tenantId", "updatedAt"} {
			delete(s, k)
		}
		r := e.do(req{method: "PUT", path: "/api/v1/admin/settings", tenant: "acme", body: s})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "A colleague will take over in a moment.", e.newChat("acme", nil).send(t, "Do you accept bitcoin?")["answer"])
		assert.Equal(t, domain.DefaultHandoffMessageZH, e.newChat("acme", nil).send(t, "你们支持比特币付款吗？")["answer"], "null: the built-in text")
		delete(s, "handoffMessages")
		s["version"] = r.JSON(t)["version"]
		r = e.do(req{method: "PUT", path: "/api/v1/admin/settings", tenant: "acme", body: s})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "A colleague will take over in a moment.", r.JSON(t)["handoffMessages"].(map[string]any)["en"], "left out: kept")
	})
	t.Run("kb-search finds what the dialogue answers from", func(t *testing.T) {
		hits := e.searchHits(map[string]any{"query": "How long do I have to return an item?"})
		require.NotEmpty(t, hits)
		assert.Equal(t, "You can return most items within 30 days of delivery.", hits[0]["text"])
		assert.LessOrEqual(t, hits[0]["score"], 1.0)
		assert.Empty(t, e.searchHits(map[string]any{"query": "Do you accept bitcoin?"}), "nothing the dialogue would answer from")
	})
}

func TestReindexEveryDocumentInOneCall(t *testing.T) {
	e := newEnv(t)
	a := e.createKB("", "acme", "a")["id"].(string)
	b := e.createKB("", "acme", "b")["id"].(string)
	for i, kb := range []string{a, a, b} {
		_, job := e.uploadAndWait(upload{kbID: kb, partName: "f" + string(rune('0'+i)) + ".txt", content: []byte("Line one of the file.\nLine two of the file.\n")})
		require.Equal(t, "succeeded", job["state"])
	}
	path := "/api/v1/admin/kb/reindex"
	wait := func(t *testing.T, res map[string]any) {
		for _, id := range res["jobIds"].([]any) {
			assert.Equal(t, "succeeded", e.waitJob("acme", id.(string))["state"])
		}
	}
	t.Run("one knowledge base", func(t *testing.T) {
		r := e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"kbId": a}})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		res := r.JSON(t)
		assert.EqualValues(t, 2, res["queued"])
		assert.Len(t, res["jobIds"], 2)
		wait(t, res)
	})
	t.Run("the whole tenant, without a body", func(t *testing.T) {
		r := e.do(req{method: "POST", path: path, tenant: "acme"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		res := r.JSON(t)
		assert.EqualValues(t, 3, res["queued"])
		assert.EqualValues(t, 0, res["alreadyQueued"])
		wait(t, res)
	})
	t.Run("documents with a job under way are left alone", func(t *testing.T) {
		first := e.do(req{method: "POST", path: path, tenant: "acme"}).JSON(t)
		second := e.do(req{method: "POST", path: path, tenant: "acme"}).JSON(t)
		assert.EqualValues(t, 3, second["queued"].(float64)+second["alreadyQueued"].(float64))
		wait(t, first)
		wait(t, second)
	})
	t.Run("an unknown or another tenant's knowledge base is 404", func(t *testing.T) {
		assert.Equal(t, "not_found", e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"kbId": "kb_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c"}}).Code(t))
		assert.Equal(t, "not_found", e.do(req{method: "POST", path: path, tenant: "globex", body: map[string]any{"kbId": a}}).Code(t))
	})
	t.Run("bad input is a problem, not a 500", func(t *testing.T) {
		assert.Equal(t, http.StatusBadRequest, e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"kbId": 7}}).Status)
		assert.Equal(t, http.StatusBadRequest, e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"kb": a}}).Status)
	})
}

// Every scene renders the tenant's published template in real use, and
// template monitoring counts those renders: the dialogue (chat), the RAG
// lab (rag_lab) and the conversation summary by the kb_processing model
// (summary).
func TestTemplatesRenderInEveryScene(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(newcomerFAQ)})
	require.Equal(t, "succeeded", job["state"])
	var mu sync.Mutex
	var systems []string
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		mu.Lock()
		systems = append(systems, body.Messages[0].Content)
		mu.Unlock()
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"The customer asks about returns."}}]}`))
	}))
	t.Cleanup(model.Close)
	r := e.do(req{method: "PUT", path: "/api/v1/admin/llm/config/kb_processing", tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": model.URL + "/v1", "model": "summarizer", "version": 0}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	for _, scene := range []string{"chat", "rag_lab", "summary"} {
		id := e.createTpl("acme", scene, scene, tplContent("You are the "+scene+" template.", map[string]any{"name": "tenant_name", "kind": "builtin"}))["id"].(string)
		r := e.do(req{method: "POST", path: tplPath + "/" + id + "/publish", tenant: "acme", body: map[string]any{"version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	}
	c := e.newChat("acme", nil)
	for range 6 {
		require.Equal(t, false, c.send(t, "How long do I have to return an item?")["shouldTransfer"])
	}
	lab := e.do(req{method: "POST", path: "/api/v1/admin/rag/experiments/run", tenant: "acme",
		body: map[string]any{"query": "How long do I have to return an item?", "generate": true}}).JSON(t)
	assert.True(t, strings.HasPrefix(lab["prompt"].([]any)[0].(map[string]any)["content"].(string), "You are the rag_lab template."),
		"the lab's prompt is its published template")
	mu.Lock()
	require.NotEmpty(t, systems, "the summary ran through the kb_processing model")
	assert.True(t, strings.HasPrefix(systems[0], "You are the summary template."), "with the published summary template: %q", systems[0])
	mu.Unlock()

	m := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/prompt-templates", tenant: "acme"}).JSON(t)
	renders := map[string]float64{}
	for _, s := range m["scenes"].([]any) {
		x := s.(map[string]any)
		renders[x["scene"].(string)] = x["renders"].(float64)
	}
	assert.Equal(t, 6.0, renders["chat"], "one render per answered message")
	assert.Equal(t, 1.0, renders["rag_lab"])
	assert.GreaterOrEqual(t, renders["summary"], 1.0)
}
