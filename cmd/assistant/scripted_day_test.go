package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// scriptedDay is a day of conversations sent through the API on the
// service's default retrieval settings: three sessions, ten customer
// messages, every kind of reply. The dashboard and conversation tests
// count what they expect from this script by hand.
type scriptedDay struct {
	e      *env
	tenant string
	// ids names the rules, flow and template made for the day.
	ids map[string]string
	// sessions are S1 (web), S2 (web) and S3 (app).
	sessions []*chat
	// turns are the messages in the order sent, with their replies.
	turns []dayTurn
}

// dayTurn is one customer message and the reply it got.
type dayTurn struct {
	session int
	message string
	reply   map[string]any
}

// dayScript: session, message, and the response type the script expects
// (a precondition of every count the tests make).
func dayScript() []struct {
	session      int
	message, typ string
} {
	return []struct {
		session      int
		message, typ string
	}{
		{0, "Hello there", "fixed"},
		{0, "How long do refunds take to reach my payment method?", "rag"},
		{0, "Can I pay with cryptocurrency at the opera?", "transfer"},
		{1, "hello", "fixed"},
		{1, "where is my order?", "flow"},
		{1, "it is B7731", "flow"},
		{1, "Does every router carry a warranty for hardware faults?", "rag"},
		{2, "CAN I PAY WITH CRYPTOCURRENCY at the opera!!", "transfer"},
		{2, "I want to kill myself", "transfer"},
		{2, "I want to talk to a human", "transfer"},
	}
}

// newScriptedDay sets the tenant up (the FAQ, a greeting rule, an order
// flow and its rule, an agent rule, a masked forbidden word, a published
// chat template) and sends the script.
func newScriptedDay(t *testing.T) *scriptedDay {
	t.Helper()
	e := newEnv(t)
	d := &scriptedDay{e: e, tenant: "acme", ids: map[string]string{}}
	kb := e.createKB("", d.tenant, "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(faq)})
	require.Equal(t, "succeeded", job["state"])
	d.ids["greeting"] = e.create(t, d.tenant, "/admin/intent-rules", map[string]any{"name": "Greeting", "keywords": []string{"hello"},
		"responseType": "fixed", "fixedText": "Hello! How can I help you today?", "priority": 10})
	d.ids["flow"] = e.create(t, d.tenant, "/admin/script-flows", map[string]any{"name": "Order status", "steps": []any{
		map[string]any{"step_no": 1, "prompt": "Please tell me your order number.", "wait_input": true,
			"expect": map[string]any{"regex": `[A-Z]\d{4}`, "slot": "order_no"}, "default_next": map[string]any{"kind": "next", "step_no": 2}},
		map[string]any{"step_no": 2, "prompt": "Thanks! Your order ships within two working days.", "wait_input": false},
	}})
	d.ids["order"] = e.create(t, d.tenant, "/admin/intent-rules", map[string]any{"name": "Order status",
		"keywords": []string{"where is my order"}, "responseType": "flow", "flowId": d.ids["flow"], "priority": 5})
	d.ids["agent"] = e.create(t, d.tenant, "/admin/intent-rules", map[string]any{"name": "Agent",
		"keywords": []string{"talk to a human"}, "responseType": "transfer", "transferReason": "wants_agent", "priority": 5})
	d.ids["word"] = e.create(t, d.tenant, "/admin/guardrails/forbidden-words", map[string]any{"word": "warranty", "matchMode": "exact", "action": "mask"})
	d.ids["template"] = e.create(t, d.tenant, "/admin/prompt-templates", map[string]any{"name": "Chat", "scene": "chat", "content": map[string]any{
		"system_instruction": "You answer for {{tenant_name}} from this evidence only:\n{{evidence}}",
		"variables":          []any{map[string]any{"name": "tenant_name", "kind": "builtin"}, map[string]any{"name": "evidence", "kind": "builtin"}}}})
	r := e.do(req{method: "POST", path: "/api/v1/admin/prompt-templates/" + d.ids["template"] + "/publish", tenant: d.tenant, body: map[string]any{"version": 1}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	for _, channel := range []string{"web", "web", "app"} {
		r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: d.tenant, body: map[string]any{"channel": channel}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		d.sessions = append(d.sessions, &chat{e: e, tenant: d.tenant, session: r.JSON(t)["id"].(string)})
	}
	for _, s := range dayScript() {
		reply := d.sessions[s.session].send(t, s.message)
		require.Equal(t, s.typ, reply["responseType"], "%q: %v", s.message, reply)
		d.turns = append(d.turns, dayTurn{session: s.session, message: s.message, reply: reply})
	}
	return d
}

// session is the id of the script's session i.
func (d *scriptedDay) session(i int) string { return d.sessions[i].session }

// monitoring returns every stored reply of the day with its monitoring, as
// the admin session view shows them.
func (d *scriptedDay) monitoring(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, c := range d.sessions {
		r := d.e.do(req{method: "GET", path: "/api/v1/admin/sessions/" + c.session + "?limit=200", tenant: d.tenant})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		for _, m := range r.JSON(t)["messages"].([]any) {
			if msg := m.(map[string]any); msg["role"] == "assistant" {
				out = append(out, msg)
			}
		}
	}
	return out
}
