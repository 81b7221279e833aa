package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestChatSessionCreateAndGet(t *testing.T) {
	e := newEnv(t)
	t.Run("a session with nothing given is on the web channel with no slots", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: "acme", body: map[string]any{}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		s := r.JSON(t)
		assert.Regexp(t, `^ses_[0-9a-f]{32}$`, s["id"])
		assert.Equal(t, "/api/v1/chat/sessions/"+s["id"].(string), r.Header.Get("Location"))
		assert.Equal(t, "acme", s["tenantId"])
		assert.Equal(t, "web", s["channel"])
		assert.Nil(t, s["customerRef"])
		assert.Equal(t, map[string]any{}, s["slots"])
		assert.EqualValues(t, 0, s["messageCount"])
	})
	t.Run("channel, customer reference and slots are kept and read back", func(t *testing.T) {
		s := e.createChatSession("", "acme", map[string]any{"channel": "app", "customerRef": "crm-42",
			"slots": map[string]any{"order_no": "A10086", "product": "路由器"}})
		r := e.do(req{method: "GET", path: "/api/v1/chat/sessions/" + s["id"].(string), tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := r.JSON(t)
		assert.Equal(t, "app", got["channel"])
		assert.Equal(t, "crm-42", got["customerRef"])
		assert.Equal(t, map[string]any{"order_no": "A10086", "product": "路由器"}, got["slots"])
		assert.Equal(t, s["createdAt"], got["createdAt"])
	})
	fifty := map[string]any{}
	for i := range 51 {
		fifty["s"+strings.Repeat("x", i)] = "v"
	}
	bad := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"an upper-case channel", map[string]any{"channel": "Web"}, "/channel"},
		{"a channel of 33 characters", map[string]any{"channel": strings.Repeat("a", 33)}, "/channel"},
		{"an empty customer reference", map[string]any{"customerRef": ""}, "/customerRef"},
		{"a slot name with a capital", map[string]any{"slots": map[string]any{"Order": "1"}}, "/slots/Order"},
		{"a slot name starting with a digit", map[string]any{"slots": map[string]any{"1st": "1"}}, "/slots/1st"},
		{"a slot value of 501 characters", map[string]any{"slots": map[string]any{"order": strings.Repeat("x", 501)}}, "/slots/order"},
		{"51 slots", map[string]any{"slots": fifty}, "/slots"},
		{"an unknown field", map[string]any{"colour": "red"}, ""},
	}
	for _, c := range bad {
		t.Run(c.name+" is 400", func(t *testing.T) {
			r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: "acme", body: c.body})
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			assert.Equal(t, "validation_failed", r.Code(t))
			if c.field != "" {
				assert.Contains(t, chatFieldsOf(t, r), c.field, "%s", r.Body)
			}
		})
	}
	t.Run("a malformed session id is 400 and an unknown one 404", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/chat/sessions/ses_nothex", tenant: "acme"})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		r = e.do(req{method: "GET", path: "/api/v1/chat/sessions/" + domain.NewID(domain.PrefixSession), tenant: "acme"})
		assert.Equal(t, http.StatusNotFound, r.Status)
		assert.Equal(t, "not_found", r.Code(t))
	})
}

func TestChatSessionMessagesMemoryAndToolTraces(t *testing.T) {
	e := newEnv(t)
	s := e.createChatSession("", "acme", map[string]any{"slots": map[string]any{"product": "router"}})
	id := s["id"].(string)
	base := "/api/v1/chat/sessions/" + id
	stored := e.storeChatExchanges(t, "acme", id, 3)
	require.NoError(t, e.app.store.AddMessage(t.Context(), chatUserMessage("acme", id, "question D")))

	t.Run("messages come oldest first, page by page, without monitoring", func(t *testing.T) {
		var all []map[string]any
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 5)
			path := base + "/messages?limit=3"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := e.do(req{method: "GET", path: path, tenant: "acme"})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			page := r.JSON(t)
			for _, m := range page["items"].([]any) {
				all = append(all, m.(map[string]any))
			}
			if page["nextCursor"] == nil {
				break
			}
			cursor = page["nextCursor"].(string)
		}
		require.Len(t, all, 7)
		var contents []string
		for _, m := range all {
			contents = append(contents, m["content"].(string))
			assert.NotContains(t, m, "monitoring")
		}
		assert.Equal(t, []string{"question A", "answer A", "question B", "answer B", "question C", "answer C", "question D"}, contents)

		user, reply := all[0], all[1]
		assert.Equal(t, "user", user["role"])
		assert.Nil(t, user["responseType"])
		assert.Nil(t, user["traceId"])
		assert.Nil(t, user["thought"])
		assert.Equal(t, []any{}, user["sources"])
		assert.NotContains(t, user, "flow")
		assert.Equal(t, "complete", user["status"])

		assert.Equal(t, "assistant", reply["role"])
		assert.Equal(t, "rag", reply["responseType"])
		assert.Equal(t, 0.72, reply["confidence"])
		assert.Equal(t, "the refund page says 3 days", reply["thought"])
		assert.Equal(t, false, reply["shouldTransfer"])
		assert.Nil(t, reply["transferReason"])
		assert.Regexp(t, `^trc_[0-9a-f]{32}$`, reply["traceId"])
		assert.Equal(t, []any{map[string]any{"documentId": "doc_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c", "documentName": "退款.pdf",
			"chunkId": "chk_5f0c1e2d3b4a59687766554433221100", "page": 2.0, "score": 0.82, "headingPath": []any{}, "quote": ""}}, reply["sources"], "a message stored before quotes were kept")
		assert.Equal(t, map[string]any{"flowId": "flow_1", "step": 1.0, "waiting": true}, reply["flow"])
	})
	t.Run("the session counts every message", func(t *testing.T) {
		r := e.do(req{method: "GET", path: base, tenant: "acme"})
		assert.EqualValues(t, 7, r.JSON(t)["messageCount"])
	})
	t.Run("memory holds the last six messages oldest first, the summary and the slots", func(t *testing.T) {
		r := e.do(req{method: "GET", path: base + "/memory", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		m := r.JSON(t)
		var turns []string
		for _, turn := range m["recentTurns"].([]any) {
			tm := turn.(map[string]any)
			turns = append(turns, tm["role"].(string)+": "+tm["content"].(string))
		}
		assert.Equal(t, []string{"assistant: answer A", "user: question B", "assistant: answer B",
			"user: question C", "assistant: answer C", "user: question D"}, turns)
		assert.Equal(t, "The customer asks about refunds.", m["summary"])
		assert.Equal(t, stored.SummarizedUpTo, m["summarizedUpTo"])
		assert.Equal(t, map[string]any{"product": "router"}, m["slots"])
	})
	t.Run("a new session's memory is empty", func(t *testing.T) {
		fresh := e.createChatSession("", "acme", map[string]any{})
		r := e.do(req{method: "GET", path: "/api/v1/chat/sessions/" + fresh["id"].(string) + "/memory", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		m := r.JSON(t)
		assert.Equal(t, []any{}, m["recentTurns"])
		assert.Equal(t, "", m["summary"])
		assert.Nil(t, m["summarizedUpTo"])
	})
	t.Run("tool traces come newest first, page by page", func(t *testing.T) {
		var ids []string
		var traces []map[string]any
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 5)
			path := base + "/tool-traces?limit=4"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := e.do(req{method: "GET", path: path, tenant: "acme"})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			page := r.JSON(t)
			for _, tr := range page["items"].([]any) {
				traces = append(traces, tr.(map[string]any))
				ids = append(ids, tr.(map[string]any)["id"].(string))
			}
			if page["nextCursor"] == nil {
				break
			}
			cursor = page["nextCursor"].(string)
		}
		require.Len(t, ids, 6)
		assert.True(t, slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(b, a) }), "newest first: %v", ids)
		byTool := map[string]map[string]any{}
		for _, tr := range traces {
			byTool[tr["tool"].(string)] = tr
		}
		kb := byTool["kb_search"]
		assert.Equal(t, map[string]any{"query": "refund", "topK": 5.0}, kb["input"])
		assert.Equal(t, "3 hits", kb["output"])
		assert.Equal(t, 4.2, kb["latencyMs"])
		assert.Nil(t, kb["error"])
		assert.Regexp(t, `^msg_`, kb["messageId"])
		assert.Equal(t, "slot locked", byTool["slot_fill"]["error"])
	})
}

func TestChatSessionSlots(t *testing.T) {
	e := newEnv(t)
	s := e.createChatSession("", "acme", map[string]any{"slots": map[string]any{"product": "router"}})
	path := "/api/v1/chat/sessions/" + s["id"].(string) + "/slots"

	r := e.do(req{method: "GET", path: path, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{"slots": map[string]any{"product": "router"}}, r.JSON(t))

	t.Run("a replace sets exactly the slots given", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"slots": map[string]any{"order_no": "A10086", "lang": "zh"}}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		want := map[string]any{"slots": map[string]any{"order_no": "A10086", "lang": "zh"}}
		assert.Equal(t, want, r.JSON(t))
		assert.Equal(t, want, e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t))
		session := e.do(req{method: "GET", path: "/api/v1/chat/sessions/" + s["id"].(string), tenant: "acme"}).JSON(t)
		assert.Equal(t, want["slots"], session["slots"])
		assert.EqualValues(t, 0, session["messageCount"])
	})
	t.Run("an empty object clears them", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"slots": map[string]any{}}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, map[string]any{"slots": map[string]any{}}, r.JSON(t))
	})
	bad := []struct {
		name   string
		body   any
		fields []string
	}{
		{"bad names, each named", map[string]any{"slots": map[string]any{"Bad": "1", "ok": "2", "9lives": "3"}}, []string{"/slots/9lives", "/slots/Bad"}},
		{"a value over 500 characters", map[string]any{"slots": map[string]any{"note": strings.Repeat("长", 501)}}, []string{"/slots/note"}},
		{"a value that is not a string", map[string]any{"slots": map[string]any{"n": 5}}, nil},
		{"no slots at all", map[string]any{}, nil},
	}
	for _, c := range bad {
		t.Run(c.name+" is 400 and changes nothing", func(t *testing.T) {
			r := e.do(req{method: "PUT", path: path, tenant: "acme", body: c.body})
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			assert.Equal(t, "validation_failed", r.Code(t))
			if c.fields != nil {
				assert.Equal(t, c.fields, chatFieldsOf(t, r))
			}
			assert.Equal(t, map[string]any{"slots": map[string]any{}}, e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t))
		})
	}
}

func TestChatTools(t *testing.T) {
	e := newEnv(t)
	_, chatKey := e.createKey(ptr("acme"), "chat")
	r := e.do(req{method: "GET", path: "/api/v1/chat/tools", key: chatKey, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var names []string
	for _, it := range r.JSON(t)["items"].([]any) {
		tool := it.(map[string]any)
		names = append(names, tool["name"].(string))
		assert.NotEmpty(t, tool["description"])
		assert.Equal(t, "object", tool["inputSchema"].(map[string]any)["type"])
	}
	assert.Equal(t, []string{"kb_search", "handoff", "slot_fill"}, names)
}

func TestAdminSessions(t *testing.T) {
	e := newEnv(t)
	web := e.createChatSession("", "acme", map[string]any{"customerRef": "crm-1"})
	app := e.createChatSession("", "acme", map[string]any{"channel": "app"})
	e.createChatSession("", "globex", map[string]any{})
	e.storeChatExchanges(t, "acme", web["id"].(string), 2)

	t.Run("the list is the tenant's sessions, newest first, each with its tenant and count", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/sessions", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 2)
		first, second := items[0].(map[string]any), items[1].(map[string]any)
		assert.Equal(t, app["id"], first["id"])
		assert.Equal(t, web["id"], second["id"])
		assert.Equal(t, "acme", second["tenantId"])
		assert.Equal(t, "web", second["channel"])
		assert.Equal(t, "crm-1", second["customerRef"])
		assert.EqualValues(t, 4, second["messageCount"])
		assert.NotEqual(t, second["createdAt"], second["updatedAt"])
	})
	t.Run("pages and a channel filter", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/sessions?limit=1", tenant: "acme"})
		p1 := r.JSON(t)
		require.NotNil(t, p1["nextCursor"])
		r = e.do(req{method: "GET", path: "/api/v1/admin/sessions?limit=1&cursor=" + p1["nextCursor"].(string), tenant: "acme"})
		p2 := r.JSON(t)
		assert.Equal(t, web["id"], p2["items"].([]any)[0].(map[string]any)["id"])
		assert.Nil(t, p2["nextCursor"])
		r = e.do(req{method: "GET", path: "/api/v1/admin/sessions?channel=app", tenant: "acme"})
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 1)
		assert.Equal(t, app["id"], items[0].(map[string]any)["id"])
	})
	t.Run("a session's messages carry their monitoring", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/sessions/" + web["id"].(string) + "?limit=3", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		d := r.JSON(t)
		assert.Equal(t, web["id"], d["session"].(map[string]any)["id"])
		assert.Equal(t, "The customer asks about refunds.", d["summary"])
		msgs := d["messages"].([]any)
		require.Len(t, msgs, 3)
		require.NotNil(t, d["nextCursor"])
		user, reply := msgs[0].(map[string]any), msgs[1].(map[string]any)
		assert.NotContains(t, user, "monitoring")
		assert.Equal(t, "answer A", reply["content"])
		assert.Equal(t, "rag", reply["responseType"])
		mon := reply["monitoring"].(map[string]any)
		assert.Equal(t, "rule_1", mon["ruleId"])
		assert.Equal(t, "flow_1", mon["flowId"])
		assert.EqualValues(t, 1, mon["flowStep"])
		assert.Equal(t, "tpl_1", mon["templateId"])
		assert.EqualValues(t, 3, mon["templateVersion"])
		assert.EqualValues(t, 812, mon["tokensIn"])
		assert.EqualValues(t, 64, mon["tokensOut"])
		assert.Equal(t, "offline-extractive", mon["model"])
		assert.EqualValues(t, 1, mon["retries"])
		stages := mon["stages"].([]any)
		require.Len(t, stages, 2)
		retrieve := stages[1].(map[string]any)
		assert.Equal(t, "retrieve", retrieve["stage"])
		assert.Equal(t, 3.1, retrieve["durationMs"])
		assert.Equal(t, "hits", retrieve["outcome"])
		assert.Equal(t, map[string]any{"hits": 3.0}, retrieve["detail"])
		assert.Equal(t, []any{map[string]any{"stage": "output", "kind": "word", "refId": "fw_1", "category": "",
			"pattern": "guaranteed", "action": "mask"}}, mon["guardHits"])

		r = e.do(req{method: "GET", path: "/api/v1/admin/sessions/" + web["id"].(string) + "?limit=3&cursor=" + d["nextCursor"].(string), tenant: "acme"})
		rest := r.JSON(t)["messages"].([]any)
		require.Len(t, rest, 1)
		assert.Equal(t, "answer B", rest[0].(map[string]any)["content"])
	})
}

// Every operation on a session id answers 404 in another tenant, for the
// other tenant's own key and for a platform key acting there, and leaves
// the session as it was.
func TestChatSessionsAreIsolatedAcrossTenants(t *testing.T) {
	e := newEnv(t)
	_, keyA := e.createKey(ptr("tenant-a"), "admin", "chat")
	_, keyB := e.createKey(ptr("tenant-b"), "admin", "chat")
	s := e.createChatSession(keyA, "tenant-a", map[string]any{"slots": map[string]any{"secret": "42"}})
	id := s["id"].(string)
	e.storeChatExchanges(t, "tenant-a", id, 1)
	chat, admin := "/api/v1/chat/sessions/"+id, "/api/v1/admin/sessions/"+id

	for _, as := range []struct{ name, key string }{{"tenant B's own key", keyB}, {"a platform key acting in tenant B", ""}} {
		t.Run(as.name, func(t *testing.T) {
			for _, r := range []req{
				{method: "GET", path: chat},
				{method: "GET", path: chat + "/messages"},
				{method: "GET", path: chat + "/memory"},
				{method: "GET", path: chat + "/tool-traces"},
				{method: "GET", path: chat + "/slots"},
				{method: "PUT", path: chat + "/slots", body: map[string]any{"slots": map[string]any{"secret": "pwned"}}},
				{method: "GET", path: admin},
			} {
				r.key, r.tenant = as.key, "tenant-b"
				res := e.do(r)
				assert.Equal(t, http.StatusNotFound, res.Status, "%s %s", r.method, r.path)
				assert.Equal(t, "not_found", res.Code(t))
			}
			list := e.do(req{method: "GET", path: "/api/v1/admin/sessions", key: as.key, tenant: "tenant-b"})
			assert.Empty(t, list.JSON(t)["items"])
		})
	}
	t.Run("the store refuses to write into another tenant's session", func(t *testing.T) {
		err := e.app.store.AddMessage(t.Context(), chatUserMessage("tenant-b", id, "hi"))
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	})
	t.Run("tenant A's session is unchanged", func(t *testing.T) {
		r := e.do(req{method: "GET", path: chat, key: keyA, tenant: "tenant-a"})
		require.Equal(t, http.StatusOK, r.Status)
		assert.Equal(t, map[string]any{"secret": "42"}, r.JSON(t)["slots"])
		assert.EqualValues(t, 2, r.JSON(t)["messageCount"])
	})
}

func TestChatSessionScopes(t *testing.T) {
	e := newEnv(t)
	_, chatKey := e.createKey(ptr("acme"), "chat")
	_, adminKey := e.createKey(ptr("acme"), "admin")
	s := e.createChatSession(chatKey, "acme", map[string]any{})
	id := s["id"].(string)
	cases := []struct {
		name, key, method, path string
	}{
		{"a chat key cannot list sessions as an admin", chatKey, "GET", "/api/v1/admin/sessions"},
		{"a chat key cannot read a session's monitoring", chatKey, "GET", "/api/v1/admin/sessions/" + id},
		{"an admin key cannot start a conversation", adminKey, "POST", "/api/v1/chat/sessions"},
		{"an admin key cannot read a conversation's messages", adminKey, "GET", "/api/v1/chat/sessions/" + id + "/messages"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := req{method: c.method, path: c.path, key: c.key, tenant: "acme"}
			if c.method == "POST" {
				r.body = map[string]any{}
			}
			res := e.do(r)
			assert.Equal(t, http.StatusForbidden, res.Status, "%s", res.Body)
			assert.Equal(t, "forbidden", res.Code(t))
		})
	}
	t.Run("each key is served on its own side", func(t *testing.T) {
		assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/api/v1/chat/sessions/" + id + "/messages", key: chatKey, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/api/v1/admin/sessions/" + id, key: adminKey, tenant: "acme"}).Status)
	})
}

// chatFieldsOf lists the field pointers of a validation problem.
func chatFieldsOf(t *testing.T, r response) []string {
	t.Helper()
	var out []string
	errs, _ := r.JSON(t)["errors"].([]any)
	for _, fe := range errs {
		out = append(out, fe.(map[string]any)["field"].(string))
	}
	return out
}
