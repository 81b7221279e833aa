package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// policies is one passage: the refund line says nothing of "money" or
// "back", so a customer asking in those words finds it only through the
// questions generated for it.
const policies = `# Refunds
Refunds are credited to the original payment method within 5 working days.
Store credit is issued instantly for returns without a receipt.
# Delivery
Standard delivery takes 3 to 5 working days.
`

// paraphrase is worded like a generated question, not like the document.
const paraphrase = "When do I get my money back?"

// questionModel is a fake OpenAI-compatible kb_processing model: for a
// passage about refunds it writes two customer questions (numbered, as
// models do); with fail set it answers 500. calls counts its requests.
type questionModel struct {
	srv   *httptest.Server
	calls atomic.Int32
	fail  atomic.Bool
}

func newQuestionModel(t *testing.T) *questionModel {
	m := &questionModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.calls.Add(1)
		var in struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		if m.fail.Load() {
			http.Error(w, `{"error":{"message":"boom"}}`, http.StatusInternalServerError)
			return
		}
		answer := "How can I contact you?"
		if last := in.Messages[len(in.Messages)-1].Content; strings.Contains(last, "Refunds are credited") {
			answer = "Here are the questions:\n1. When will I get my money back?\n2. Can I return something without the receipt?"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"model": "m", "choices": []any{map[string]any{"index": 0,
			"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}}})
	}))
	t.Cleanup(m.srv.Close)
	return m
}

// useKBProcessingModel points the tenant's kb_processing model at url.
func useKBProcessingModel(t *testing.T, e *env, tenant, url string) {
	r := e.do(req{method: "PUT", path: "/api/v1/admin/llm/config/kb_processing", tenant: tenant, body: map[string]any{
		"provider": "openai_compatible", "baseUrl": url + "/v1", "apiKey": "sk-test-000000000000", "model": "m", "version": 0, "retries": 0,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

// kinds counts a document's chunks by kind and returns the generated
// questions' texts.
func kinds(e *env, tenant, docID string) (map[string]int, []string) {
	n := map[string]int{}
	var questions []string
	for _, c := range e.chunks(tenant, docID) {
		n[c["kind"].(string)]++
		if c["kind"] == "generated_question" {
			questions = append(questions, c["text"].(string))
		}
	}
	return n, questions
}

func TestQuestionGenerationIsOffByDefault(t *testing.T) {
	e := newEnv(t)
	model := newQuestionModel(t)

	t.Run("a new knowledge base generates no questions and calls no model, even with one configured", func(t *testing.T) {
		useKBProcessingModel(t, e, "acme", model.srv.URL)
		kb := e.createKB("", "acme", "policies")
		assert.Equal(t, false, kb["questionGeneration"])
		doc, job := e.uploadAndWait(upload{kbID: kb["id"].(string), partName: "policies.txt", content: []byte(policies)})
		require.Equal(t, "succeeded", job["state"], "%v", job)
		n, _ := kinds(e, "acme", doc["id"].(string))
		assert.Equal(t, 0, n["generated_question"])
		assert.Positive(t, n["unit"])
		assert.Zero(t, model.calls.Load(), "the model was never asked")
	})
	t.Run("the switch on with the offline kb_processing model generates nothing", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "globex",
			body: map[string]any{"name": "policies", "questionGeneration": true}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		doc, job := e.uploadAndWait(upload{tenant: "globex", kbID: r.JSON(t)["id"].(string), partName: "policies.txt", content: []byte(policies)})
		require.Equal(t, "succeeded", job["state"], "%v", job)
		n, _ := kinds(e, "globex", doc["id"].(string))
		assert.Equal(t, 0, n["generated_question"])
		assert.Zero(t, model.calls.Load())
	})
}

func TestGeneratedQuestionsLeadToTheirPassage(t *testing.T) {
	e := newEnv(t)
	model := newQuestionModel(t)
	useKBProcessingModel(t, e, "acme", model.srv.URL)
	r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme",
		body: map[string]any{"name": "policies", "questionGeneration": true}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	kb := r.JSON(t)
	require.Equal(t, true, kb["questionGeneration"])
	kbID := kb["id"].(string)
	doc, job := e.uploadAndWait(upload{kbID: kbID, partName: "policies.txt", content: []byte(policies)})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	docID := doc["id"].(string)

	// The same document in a tenant without the switch: the control.
	plain := e.createKB("", "globex", "policies")["id"].(string)
	_, job = e.uploadAndWait(upload{tenant: "globex", kbID: plain, partName: "policies.txt", content: []byte(policies)})
	require.Equal(t, "succeeded", job["state"], "%v", job)

	t.Run("the model's questions are indexed after the document's units", func(t *testing.T) {
		chunks := e.chunks("acme", docID)
		n, questions := kinds(e, "acme", docID)
		assert.Equal(t, []string{"When will I get my money back?", "Can I return something without the receipt?"}, questions)
		got := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + docID, tenant: "acme"}).JSON(t)
		assert.Equal(t, float64(n["unit"]), got["chunkCount"], "the document counts its own units")
		assert.Equal(t, "generated_question", chunks[len(chunks)-1]["kind"])
		assert.Equal(t, []any{"Refunds"}, chunks[len(chunks)-1]["headingPath"], "a question carries its passage's headings")
		assert.Positive(t, model.calls.Load())
	})
	var questionChunk string
	t.Run("a question worded like a generated one retrieves, quotes and cites the passage", func(t *testing.T) {
		reply := e.newChat("acme", nil).send(t, paraphrase)
		require.Equal(t, false, reply["shouldTransfer"], "%v", reply)
		assert.Equal(t, "rag", reply["responseType"])
		assert.Contains(t, reply["answer"], "Refunds are credited to the original payment method within 5 working days.")
		sources := reply["sources"].([]any)
		require.NotEmpty(t, sources)
		src := sources[0].(map[string]any)
		assert.Equal(t, docID, src["documentId"])
		assert.Contains(t, src["quote"], "Refunds are credited to the original payment method", "the citation quotes the passage")
		assert.Contains(t, src["quote"], "Store credit is issued instantly")
		assert.NotContains(t, src["quote"], "money back", "never the generated question")
		questionChunk = src["chunkId"].(string)
		for _, c := range e.chunks("acme", docID) {
			if c["id"] == questionChunk {
				assert.Equal(t, "generated_question", c["kind"], "found through the generated question")
			}
		}
	})
	t.Run("the kb-search tool returns the passage for a hit on a question", func(t *testing.T) {
		r := e.search("acme", map[string]any{"query": paraphrase})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		items := r.JSON(t)["items"].([]any)
		require.NotEmpty(t, items)
		hit := items[0].(map[string]any)
		assert.Equal(t, questionChunk, hit["chunkId"])
		assert.Contains(t, hit["text"], "Refunds are credited to the original payment method")
	})
	t.Run("without generated questions the same customer question is handed off", func(t *testing.T) {
		reply := e.newChat("globex", nil).send(t, paraphrase)
		assert.Equal(t, true, reply["shouldTransfer"], "%v", reply)
	})
	t.Run("switched off and re-indexed, the document loses its questions", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: "/api/v1/admin/kb/knowledge-bases/" + kbID, tenant: "acme",
			body: map[string]any{"name": "policies", "description": "", "questionGeneration": false, "version": kb["version"]}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, false, r.JSON(t)["questionGeneration"])
		r = e.do(req{method: "POST", path: "/api/v1/admin/kb/documents/" + docID + "/reindex", tenant: "acme"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		job := e.waitJob("acme", r.JSON(t)["job"].(map[string]any)["id"].(string))
		require.Equal(t, "succeeded", job["state"], "%v", job)
		n, _ := kinds(e, "acme", docID)
		assert.Equal(t, 0, n["generated_question"])
		reply := e.newChat("acme", nil).send(t, paraphrase)
		assert.Equal(t, true, reply["shouldTransfer"], "the question's vector and words went with it: %v", reply)
	})
	t.Run("an update without the switch keeps it", func(t *testing.T) {
		cur := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases/" + kbID, tenant: "acme"}).JSON(t)
		r := e.do(req{method: "PUT", path: "/api/v1/admin/kb/knowledge-bases/" + kbID, tenant: "acme",
			body: map[string]any{"name": "policies", "description": "on again", "questionGeneration": true, "version": cur["version"]}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		r = e.do(req{method: "PUT", path: "/api/v1/admin/kb/knowledge-bases/" + kbID, tenant: "acme",
			body: map[string]any{"name": "policies", "description": "renamed", "version": r.JSON(t)["version"]}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, true, r.JSON(t)["questionGeneration"])
	})
}

func TestAFailingQuestionModelLeavesTheDocumentIndexed(t *testing.T) {
	e := newEnv(t)
	model := newQuestionModel(t)
	model.fail.Store(true)
	useKBProcessingModel(t, e, "acme", model.srv.URL)
	r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme",
		body: map[string]any{"name": "policies", "questionGeneration": true}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	doc, job := e.uploadAndWait(upload{kbID: r.JSON(t)["id"].(string), partName: "policies.txt", content: []byte(policies)})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	assert.Positive(t, model.calls.Load(), "the model was asked")
	n, _ := kinds(e, "acme", doc["id"].(string))
	assert.Equal(t, 0, n["generated_question"])
	assert.Positive(t, n["unit"])
	reply := e.newChat("acme", nil).send(t, "How long do refunds take?")
	assert.Equal(t, false, reply["shouldTransfer"], "the document answers as without questions: %v", reply)
}
