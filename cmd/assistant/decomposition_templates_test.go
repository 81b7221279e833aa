package main

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const dtPath = "/api/v1/admin/decomposition-templates"

// decompositionEnv is a tenant whose FAQ is about routers (document
// metadata product=router, a filter field), with slot definitions for an
// order number, a delivery date, the device (linked to the product field)
// and a quantity, and a decomposition template over all of them.
func decompositionEnv(t *testing.T) (*env, string) {
	t.Helper()
	e := newEnv(t)
	e.create(t, "acme", "/admin/metadata/fields", map[string]any{"key": "product", "type": "enum",
		"enumValues": []string{"router", "camera"}, "scope": "document", "role": "filter"})
	kb := e.createKB("", "acme", "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(faq), metadata: `{"product": "router"}`})
	require.Equal(t, "succeeded", job["state"])
	r := e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", tenant: "acme",
		body: strategyBody(map[string]any{"mode": "hybrid", "scoreThreshold": 0.1, "minTopScore": 0.15, "transferConfidenceThreshold": 0.2})})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	field := e.do(req{method: "GET", path: "/api/v1/admin/metadata/fields", tenant: "acme"}).JSON(t)["items"].([]any)[0].(map[string]any)["id"]
	e.defineSlot(t, "acme", map[string]any{"key": "order_no", "type": "string", "pattern": "^[A-Z][0-9]{5}$"})
	e.defineSlot(t, "acme", map[string]any{"key": "delivery", "type": "date"})
	e.defineSlot(t, "acme", map[string]any{"key": "device", "type": "enum", "enumValues": []string{"router", "camera"}, "metadataFieldId": field})
	e.defineSlot(t, "acme", map[string]any{"key": "quantity", "type": "number"})
	tpl := e.create(t, "acme", "/admin/decomposition-templates", map[string]any{"name": "Orders", "content": decompositionContent("Extract the order details.")})
	return e, tpl
}

// decompositionContent targets every slot of decompositionEnv and the
// product field.
func decompositionContent(instruction string) map[string]any {
	return map[string]any{"instruction": instruction, "targets": []any{
		map[string]any{"kind": "slot", "key": "order_no", "description": "The order number.", "examples": []string{"A10086"}},
		map[string]any{"kind": "slot", "key": "delivery", "description": "When the order arrived."},
		map[string]any{"kind": "slot", "key": "device", "description": "The device the customer has."},
		map[string]any{"kind": "slot", "key": "quantity", "description": "How many items."},
		map[string]any{"kind": "metadata", "key": "product", "description": "The product the question is about."},
	}}
}

// publishDecomposition publishes a version of a template.
func (e *env) publishDecomposition(t *testing.T, id string, version int) map[string]any {
	t.Helper()
	r := e.do(req{method: "POST", path: dtPath + "/" + id + "/publish", tenant: "acme", body: map[string]any{"version": version}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(t)
}

// retrievalDetail is the retrieval stage's detail of the session's newest reply.
func (e *env) retrievalDetail(t *testing.T, session string) map[string]any {
	t.Helper()
	r := e.do(req{method: "GET", path: "/api/v1/admin/sessions/" + session, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	msgs := r.JSON(t)["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i].(map[string]any)
		if m["role"] != "assistant" {
			continue
		}
		for _, s := range m["monitoring"].(map[string]any)["stages"].([]any) {
			if st := s.(map[string]any); st["stage"] == "retrieval" {
				return st["detail"].(map[string]any)
			}
		}
	}
	require.Fail(t, "no retrieval stage")
	return nil
}

func TestDecompositionTemplatesAreVersionedLikePromptTemplates(t *testing.T) {
	e, id := decompositionEnv(t)
	path := dtPath + "/" + id
	get := func() map[string]any { return e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t) }
	put := func(instruction string, version any) response {
		return e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "Orders", "description": "",
			"content": decompositionContent(instruction), "version": version}})
	}

	t.Run("a new template is version 1, unpublished and inactive", func(t *testing.T) {
		tpl := get()
		assert.Regexp(t, `^dt_[0-9a-f]{32}$`, tpl["id"])
		assert.Equal(t, 1.0, tpl["latestVersion"])
		assert.Nil(t, tpl["publishedVersion"])
		assert.Equal(t, false, tpl["active"])
		assert.Equal(t, "Extract the order details.", tpl["content"].(map[string]any)["instruction"])
	})
	t.Run("a target is named once; one the tenant does not define is skipped, and the preview says so", func(t *testing.T) {
		content := decompositionContent("x")
		content["targets"] = append(content["targets"].([]any), map[string]any{"kind": "slot", "key": "order_no"})
		r := e.do(req{method: "POST", path: dtPath, tenant: "acme", body: map[string]any{"name": "Bad", "content": content}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r)["/content/targets/5/key"], "already extracts")

		content["targets"] = append(content["targets"].([]any)[:5],
			map[string]any{"kind": "slot", "key": "colour"}, map[string]any{"kind": "metadata", "key": "region"})
		other := e.create(t, "acme", "/admin/decomposition-templates", map[string]any{"name": "Typos", "content": content})
		r = e.do(req{method: "POST", path: dtPath + "/" + other + "/preview", tenant: "acme", body: map[string]any{"message": "Order A10086"}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		p := r.JSON(t)
		assert.Equal(t, []any{map[string]any{"kind": "slot", "key": "colour"}, map[string]any{"kind": "metadata", "key": "region"}}, p["skipped"])
		assert.Equal(t, map[string]any{"order_no": "A10086"}, p["slots"], "the other targets still run")
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: dtPath + "/" + other, tenant: "acme"}).Status)
	})
	t.Run("names are unique in a tenant", func(t *testing.T) {
		r := e.do(req{method: "POST", path: dtPath, tenant: "acme", body: map[string]any{"name": "Orders", "content": decompositionContent("x")}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "conflict", r.Code(t))
	})
	t.Run("a save makes a version only when the content changes", func(t *testing.T) {
		r := put("Extract the order details.", 1)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, 1.0, r.JSON(t)["latestVersion"])
		r = put("Extract the order details; never guess.", 2)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, 2.0, r.JSON(t)["latestVersion"])
		r = put("stale", 2)
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "version_conflict", r.Code(t))
	})
	t.Run("versions are listed newest first, a page at a time", func(t *testing.T) {
		r := e.do(req{method: "GET", path: path + "/versions?limit=1", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status)
		page := r.JSON(t)
		assert.Equal(t, 2.0, page["items"].([]any)[0].(map[string]any)["version"])
		r = e.do(req{method: "GET", path: path + "/versions?limit=1&cursor=" + page["nextCursor"].(string), tenant: "acme"})
		v1 := r.JSON(t)["items"].([]any)[0].(map[string]any)
		assert.Equal(t, 1.0, v1["version"])
		assert.Equal(t, "Extract the order details.", v1["content"].(map[string]any)["instruction"])
		assert.Nil(t, r.JSON(t)["nextCursor"])
	})
	t.Run("publish and rollback follow the prompt templates' rules", func(t *testing.T) {
		r := e.do(req{method: "POST", path: path + "/rollback", tenant: "acme", body: map[string]any{"version": 1}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "invalid_transition", r.Code(t))
		r = e.do(req{method: "POST", path: path + "/publish", tenant: "acme", body: map[string]any{"version": 3}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r)["/version"], "versions 1 to 2")

		tpl := e.publishDecomposition(t, id, 2)
		assert.Equal(t, 2.0, tpl["publishedVersion"])
		assert.Equal(t, true, tpl["active"])
		r = e.do(req{method: "POST", path: path + "/rollback", tenant: "acme", body: map[string]any{"version": 2}})
		assert.Equal(t, http.StatusBadRequest, r.Status, "a rollback goes to an earlier version")
		r = e.do(req{method: "POST", path: path + "/rollback", tenant: "acme", body: map[string]any{"version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, 1.0, r.JSON(t)["publishedVersion"])
		assert.Equal(t, 2.0, r.JSON(t)["latestVersion"], "history is kept")
		versions := e.do(req{method: "GET", path: path + "/versions", tenant: "acme"}).JSON(t)["items"].([]any)
		assert.Equal(t, false, versions[0].(map[string]any)["published"])
		assert.Equal(t, true, versions[1].(map[string]any)["published"])
		assert.NotNil(t, versions[0].(map[string]any)["lastPublishedAt"], "version 2 was published once")
	})
	t.Run("publishing another template makes it the active one, at once for the dialogue", func(t *testing.T) {
		used := func() (any, any) {
			c := e.newChat("acme", nil)
			c.send(t, "Where is my router order A10086?")
			dec := e.retrievalDetail(t, c.session)["decomposition"].(map[string]any)
			return dec["templateId"], dec["version"]
		}
		tplID, version := used()
		assert.Equal(t, id, tplID)
		assert.Equal(t, 1.0, version, "the rolled-back version runs")
		other := e.create(t, "acme", "/admin/decomposition-templates", map[string]any{"name": "Other", "content": decompositionContent("y")})
		e.publishDecomposition(t, other, 1)
		assert.Equal(t, false, get()["active"])
		tplID, _ = used()
		assert.Equal(t, other, tplID, "the cache was dropped on publish")
		e.publishDecomposition(t, id, 2)
		assert.Equal(t, true, get()["active"])
		tplID, version = used()
		assert.Equal(t, id, tplID)
		assert.Equal(t, 2.0, version)
	})
	t.Run("a preview runs a version without storing anything", func(t *testing.T) {
		r := e.do(req{method: "POST", path: path + "/preview", tenant: "acme",
			body: map[string]any{"message": "Order A10086: 2 routers, delivered 2026-11-20.", "version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		p := r.JSON(t)
		assert.Equal(t, 1.0, p["version"])
		assert.Equal(t, "fallback", p["method"], "no kb_processing model is configured")
		assert.Equal(t, map[string]any{"order_no": "A10086", "delivery": "2026-11-20", "device": "router", "quantity": "2"}, p["slots"])
		assert.Equal(t, map[string]any{"product": "router"}, p["metadata"])
		r = e.do(req{method: "POST", path: path + "/preview", tenant: "acme", body: map[string]any{"message": "hi", "version": 7}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
	})
	t.Run("another tenant sees none of it", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path, tenant: "globex"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: path, tenant: "globex"}).Status)
	})
	t.Run("a delete takes the versions and the active place with it", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path + "/versions", tenant: "acme"}).Status)
		c := e.newChat("acme", nil)
		c.send(t, "My router order A10086 arrived broken")
		_, decomposed := e.retrievalDetail(t, c.session)["decomposition"]
		assert.False(t, decomposed, "with no active template nothing is decomposed")
	})
}

// On untouched defaults (no kb_processing model) the extractive fallback
// fills the session's slots from the message, and the linked slot and the
// metadata target filter retrieval.
func TestDecompositionFillsSlotsWithTheFallback(t *testing.T) {
	e, id := decompositionEnv(t)
	e.publishDecomposition(t, id, 1)
	c := e.newChat("acme", nil)

	c.send(t, "My router order A10086 arrived on 2026/11/20 and I need 3 more; how long do refunds take?")
	slots := e.do(req{method: "GET", path: c.path("/slots"), tenant: "acme"}).JSON(t)["slots"]
	assert.Equal(t, map[string]any{"order_no": "A10086", "delivery": "2026-11-20", "device": "router", "quantity": "3"}, slots)

	d := e.retrievalDetail(t, c.session)
	dec := d["decomposition"].(map[string]any)
	assert.Equal(t, "fallback", dec["method"])
	assert.Equal(t, id, dec["templateId"])
	assert.Equal(t, 1.0, dec["version"])
	assert.Equal(t, slots, dec["slots"])
	assert.Equal(t, map[string]any{"product": "router"}, d["filter"], "the linked slot and the metadata target filter by product")

	traces := e.do(req{method: "GET", path: c.path("/tool-traces"), tenant: "acme"}).JSON(t)["items"].([]any)
	filled := map[string]bool{}
	for _, it := range traces {
		tt := it.(map[string]any)
		if tt["tool"] == "slot_fill" {
			filled[tt["input"].(map[string]any)["slot"].(string)] = true
		}
	}
	assert.Equal(t, map[string]bool{"order_no": true, "delivery": true, "device": true, "quantity": true}, filled)

	t.Run("a later message replaces what it names and keeps the rest", func(t *testing.T) {
		c.send(t, "Sorry, the order is B20002, not the other one")
		slots := e.do(req{method: "GET", path: c.path("/slots"), tenant: "acme"}).JSON(t)["slots"].(map[string]any)
		assert.Equal(t, "B20002", slots["order_no"])
		assert.Equal(t, "2026-11-20", slots["delivery"])
	})
	t.Run("the complete-flow test shows the same without storing it", func(t *testing.T) {
		out := e.dryRun(t, "acme", map[string]any{"message": "Order C30003 for a camera"})
		assert.Equal(t, map[string]any{"order_no": "C30003", "device": "camera"}, out["slots"])
	})
}

// decompositionModel is a fake OpenAI-compatible kb_processing model: it
// answers decomposition prompts with answer, anything else (summaries)
// with a sentence, and keeps the decomposition prompts it saw.
type decompositionModel struct {
	mu      sync.Mutex
	answer  string
	prompts []string
}

func (m *decompositionModel) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		m.mu.Lock()
		content := "The customer asked about an order."
		if system := body.Messages[0].Content; strings.Contains(system, "Extract the values below") {
			m.prompts = append(m.prompts, system+"\n---\n"+body.Messages[1].Content)
			content = m.answer
		}
		m.mu.Unlock()
		out, _ := json.Marshal(map[string]any{"model": "m", "choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}}})
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (m *decompositionModel) set(answer string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.answer = answer
}

func TestDecompositionAsksTheKBProcessingModel(t *testing.T) {
	e, id := decompositionEnv(t)
	e.publishDecomposition(t, id, 1)
	model := &decompositionModel{answer: "```json\n" + `{"slots": {"order_no": "B20001", "device": "tablet", "quantity": 2, "mood": "angry"},` +
		` "metadata": {"product": "router"}}` + "\n```"}
	srv := model.serve(t)
	r := e.do(req{method: "PUT", path: "/api/v1/admin/llm/config/kb_processing", tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": srv.URL + "/v1", "apiKey": "sk-test-000000000000", "model": "m", "version": 0, "retries": 0}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	t.Run("the model's JSON is checked against the definitions", func(t *testing.T) {
		r := e.do(req{method: "POST", path: dtPath + "/" + id + "/preview", tenant: "acme", body: map[string]any{"message": "Where is order B20001?"}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		p := r.JSON(t)
		assert.Equal(t, "model", p["method"])
		assert.Nil(t, p["modelError"])
		assert.Equal(t, map[string]any{"order_no": "B20001", "quantity": "2"}, p["slots"])
		assert.Equal(t, map[string]any{"product": "router"}, p["metadata"])
		refused := map[string]string{}
		for _, x := range p["refused"].([]any) {
			f := x.(map[string]any)
			refused[f["key"].(string)] = f["reason"].(string)
		}
		assert.Contains(t, refused["device"], "one of")
		assert.Contains(t, refused["mood"], "not a target")
		model.mu.Lock()
		require.NotEmpty(t, model.prompts)
		prompt := model.prompts[len(model.prompts)-1]
		model.mu.Unlock()
		assert.Contains(t, prompt, "Extract the order details.", "the template's instruction leads")
		assert.Contains(t, prompt, `order_no (a string matching ^[A-Z][0-9]{5}$): The order number. Examples: ["A10086"]`)
		assert.Contains(t, prompt, `product (one of ["router","camera"])`)
		assert.True(t, strings.HasSuffix(prompt, "Customer message:\nWhere is order B20001?"))
	})
	t.Run("a message fills the session from the model's answer", func(t *testing.T) {
		c := e.newChat("acme", nil)
		c.send(t, "Where is my order B20001? How long do refunds take?")
		slots := e.do(req{method: "GET", path: c.path("/slots"), tenant: "acme"}).JSON(t)["slots"]
		assert.Equal(t, map[string]any{"order_no": "B20001", "quantity": "2"}, slots)
		dec := e.retrievalDetail(t, c.session)["decomposition"].(map[string]any)
		assert.Equal(t, "model", dec["method"])
		assert.Len(t, dec["refused"], 2)
	})
	t.Run("a bad answer is logged and ignored: the fallback runs and the reply goes on", func(t *testing.T) {
		model.set("Sorry, I cannot do that.")
		c := e.newChat("acme", nil)
		reply := c.send(t, "My router order C30003 never arrived; how long do refunds take?")
		assert.NotEmpty(t, reply["answer"])
		dec := e.retrievalDetail(t, c.session)["decomposition"].(map[string]any)
		assert.Equal(t, "fallback", dec["method"])
		assert.Contains(t, dec["modelError"], "no JSON object")
		slots := e.do(req{method: "GET", path: c.path("/slots"), tenant: "acme"}).JSON(t)["slots"]
		assert.Equal(t, map[string]any{"order_no": "C30003", "device": "router"}, slots)
		assert.Contains(t, e.logs.String(), "decomposition: the model's answer was not used")
	})
}

// uploadProposing uploads a text file asking (or not) for proposals.
func (e *env) uploadProposing(t *testing.T, kb, name, text, metadata, propose string) response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	require.NoError(t, w.WriteField("kbId", kb))
	if metadata != "" {
		require.NoError(t, w.WriteField("metadata", metadata))
	}
	if propose != "" {
		require.NoError(t, w.WriteField("proposeMetadata", propose))
	}
	fw, err := w.CreateFormFile("file", name)
	require.NoError(t, err)
	_, _ = fw.Write([]byte(text))
	require.NoError(t, w.Close())
	return e.do(req{method: "POST", path: "/api/v1/admin/kb/documents", tenant: "acme", body: body.Bytes(), contentType: w.FormDataContentType()})
}

func TestUploadProposesMetadataWithTheTemplate(t *testing.T) {
	e, id := decompositionEnv(t)
	kb := e.createKB("", "acme", "manuals")["id"].(string)
	const manual = "Camera manual\nThe camera records video in 4K. Charge the camera for two hours before first use.\n"

	r := e.uploadProposing(t, kb, "manual.txt", manual, "", "true")
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{}, r.JSON(t)["proposedMetadata"], "without an active template nothing is proposed")

	e.publishDecomposition(t, id, 1)
	r = e.uploadProposing(t, kb, "manual-2.txt", manual, "", "true")
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	out := r.JSON(t)
	assert.Equal(t, map[string]any{"product": "camera"}, out["proposedMetadata"])
	assert.Equal(t, map[string]any{"product": "camera"}, out["document"].(map[string]any)["metadata"])

	r = e.uploadProposing(t, kb, "manual-3.txt", manual, `{"product": "router"}`, "true")
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	out = r.JSON(t)
	assert.Equal(t, map[string]any{}, out["proposedMetadata"], "the upload's own metadata wins")
	assert.Equal(t, map[string]any{"product": "router"}, out["document"].(map[string]any)["metadata"])

	r = e.uploadProposing(t, kb, "manual-4.txt", manual, "", "")
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{}, r.JSON(t)["document"].(map[string]any)["metadata"], "proposals are asked for, never made unasked")

	r = e.uploadProposing(t, kb, "manual-5.txt", manual, "", "maybe")
	require.Equal(t, http.StatusBadRequest, r.Status)
	assert.Contains(t, fieldErrors(t, r), "proposeMetadata")
}
