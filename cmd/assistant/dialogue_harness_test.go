package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// chat is one customer session of a dialogue test.
type chat struct {
	e       *env
	tenant  string
	session string
}

// newChat opens a session in tenant.
func (e *env) newChat(tenant string, slots map[string]string) *chat {
	e.t.Helper()
	body := map[string]any{"channel": "web"}
	if slots != nil {
		body["slots"] = slots
	}
	r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: tenant, body: body})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return &chat{e: e, tenant: tenant, session: r.JSON(e.t)["id"].(string)}
}

func (c *chat) path(rest string) string { return "/api/v1/chat/sessions/" + c.session + rest }

// send posts a message and returns the JSON reply. A reply that hands
// the session over is followed by an agent who claims it and gives it
// straight back, so that a scripted conversation goes on with the bot
// (TestHumanTakeover, with post, is the one that keeps it waiting).
func (c *chat) send(t *testing.T, message string) map[string]any {
	t.Helper()
	reply := c.post(t, message)
	if reply["handoffState"] == "waiting_for_agent" {
		for _, step := range []string{"claim", "release"} {
			r := c.agent(step, "agent-harness", nil)
			require.Equal(t, http.StatusOK, r.Status, "%s %s", step, r.Body)
		}
	}
	return reply
}

// post posts a message and returns the JSON reply.
func (c *chat) post(t *testing.T, message string) map[string]any {
	t.Helper()
	r := c.e.do(req{method: "POST", path: c.path("/messages"), tenant: c.tenant, body: map[string]any{"message": message}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(t)
}

// stream posts a message asking for server-sent events and returns them.
func (c *chat) stream(t *testing.T, message string, header map[string]string) []sseEvent {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"message": message})
	hr, err := http.NewRequest("POST", c.e.srv.URL+c.path("/messages"), bytes.NewReader(body))
	require.NoError(t, err)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("X-API-Key", c.e.root)
	hr.Header.Set("X-Tenant-Id", c.tenant)
	for k, v := range header {
		hr.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(hr)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	return readSSE(t, res)
}

// dryRun runs the complete-flow test.
func (e *env) dryRun(t *testing.T, tenant string, body map[string]any) map[string]any {
	t.Helper()
	r := e.do(req{method: "POST", path: "/api/v1/admin/dialogue/test", tenant: tenant, body: body})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(t)
}

// create posts an admin resource and returns its id.
func (e *env) create(t *testing.T, tenant, path string, body map[string]any) string {
	t.Helper()
	r := e.do(req{method: "POST", path: "/api/v1" + path, tenant: tenant, body: body})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(t)["id"].(string)
}

// sameReply keeps the fields of a reply that must agree between two runs
// of the same input (not the ids and times).
func sameReply(r map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"answer", "thought", "responseType", "confidence", "shouldTransfer", "transferReason", "flow"} {
		out[k] = r[k]
	}
	var docs []any
	for _, s := range r["sources"].([]any) {
		m := s.(map[string]any)
		docs = append(docs, []any{m["documentName"], m["chunkId"], m["page"]})
	}
	out["sources"] = docs
	return out
}
