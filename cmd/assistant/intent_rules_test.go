package main

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/intent"
)

const intentRulesPath = "/api/v1/admin/intent-rules"

// createRule makes an intent rule in tenant and returns its JSON.
func (e *env) createRule(tenant string, body map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: intentRulesPath, tenant: tenant, body: body})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

func TestIntentRuleCRUD(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "POST", path: intentRulesPath, tenant: "acme", body: map[string]any{
		"name": "Greeting", "keywords": []string{"hello", "你好"}, "responseType": "fixed", "fixedText": "Hi! How can I help?",
	}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	rule := r.JSON(t)
	id := rule["id"].(string)
	assert.Regexp(t, `^rule_[0-9a-f]{32}$`, id)
	path := intentRulesPath + "/" + id
	assert.Equal(t, path, r.Header.Get("Location"))
	assert.Equal(t, "any", rule["keywordMode"], "keyword mode defaults to any")
	assert.EqualValues(t, 0, rule["priority"])
	assert.Equal(t, true, rule["enabled"])
	assert.Equal(t, []any{}, rule["patterns"])
	assert.Equal(t, []any{}, rule["kbIds"])
	assert.Equal(t, "", rule["flowId"])
	assert.EqualValues(t, 1, rule["version"])

	t.Run("get and list show it", func(t *testing.T) {
		got := e.do(req{method: "GET", path: path, tenant: "acme"})
		require.Equal(t, http.StatusOK, got.Status)
		assert.Equal(t, rule, got.JSON(t))
		list := e.do(req{method: "GET", path: intentRulesPath, tenant: "acme"}).JSON(t)
		require.Len(t, list["items"], 1)
		assert.Equal(t, id, list["items"].([]any)[0].(map[string]any)["id"])
		assert.Nil(t, list["nextCursor"])
	})
	t.Run("a duplicate name in the tenant is a conflict", func(t *testing.T) {
		r := e.do(req{method: "POST", path: intentRulesPath, tenant: "acme", body: map[string]any{
			"name": "Greeting", "keywords": []string{"hi"}, "responseType": "transfer", "transferReason": "x",
		}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "conflict", r.Code(t))
		assert.Contains(t, fieldErrors(t, r), "/name")
	})
	t.Run("put replaces the rule and bumps the version; a stale version is a conflict", func(t *testing.T) {
		body := map[string]any{
			"name": "Greeting", "keywords": []string{"hello"}, "keywordMode": "all", "patterns": []string{`^hi\b`},
			"priority": 5, "responseType": "transfer", "transferReason": "greeted", "enabled": false, "version": 1,
		}
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: body})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := r.JSON(t)
		assert.EqualValues(t, 2, got["version"])
		assert.Equal(t, "transfer", got["responseType"])
		assert.Equal(t, "", got["fixedText"], "the old type's target is gone")
		assert.Equal(t, "greeted", got["transferReason"])
		assert.Equal(t, []any{`^hi\b`}, got["patterns"])
		assert.Equal(t, false, got["enabled"])

		stale := e.do(req{method: "PUT", path: path, tenant: "acme", body: body})
		assert.Equal(t, http.StatusConflict, stale.Status)
		assert.Equal(t, "version_conflict", stale.Code(t))
		assert.EqualValues(t, 2, e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["version"], "nothing changed")
	})
	t.Run("list pages newest first", func(t *testing.T) {
		second := e.createRule("acme", map[string]any{"name": "Second", "keywords": []string{"b"}, "responseType": "rag"})
		third := e.createRule("acme", map[string]any{"name": "Third", "keywords": []string{"c"}, "responseType": "rag"})
		var seen []string
		p := intentRulesPath + "?limit=2"
		for {
			body := e.do(req{method: "GET", path: p, tenant: "acme"}).JSON(t)
			for _, it := range body["items"].([]any) {
				seen = append(seen, it.(map[string]any)["id"].(string))
			}
			next, ok := body["nextCursor"].(string)
			if !ok {
				break
			}
			p = intentRulesPath + "?limit=2&cursor=" + next
		}
		assert.Equal(t, []string{third["id"].(string), second["id"].(string), id}, seen)
	})
	t.Run("delete removes it", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		put := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{
			"name": "x", "keywords": []string{"x"}, "keywordMode": "any", "patterns": []string{}, "priority": 0,
			"responseType": "rag", "enabled": true, "version": 2,
		}})
		assert.Equal(t, http.StatusNotFound, put.Status, "a deleted rule is not found, not a version conflict")
	})
}

func TestIntentRuleValidation(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "FAQ")["id"].(string)
	otherKB := e.createKB("", "globex", "FAQ")["id"].(string)
	cases := []struct {
		name   string
		body   map[string]any
		fields map[string]string // field → part of its message
	}{
		{"a bad pattern points at it and quotes Go's regexp error",
			map[string]any{"name": "r", "patterns": []string{`order\s*#\d+`, `(unclosed`}, "responseType": "rag"},
			map[string]string{"/patterns/1": "error parsing regexp: missing closing ): `(unclosed`"}},
		{"every bad pattern is reported",
			map[string]any{"name": "r", "patterns": []string{`a{2,1}`, `ok`, `[z-a]`}, "responseType": "rag"},
			map[string]string{"/patterns/0": "invalid repeat count", "/patterns/2": "invalid character class range"}},
		{"a fixed rule needs its text",
			map[string]any{"name": "r", "keywords": []string{"hi"}, "responseType": "fixed"},
			map[string]string{"/fixedText": "required"}},
		{"a flow rule needs its flow",
			map[string]any{"name": "r", "keywords": []string{"hi"}, "responseType": "flow"},
			map[string]string{"/flowId": "required"}},
		{"another type's target is refused",
			map[string]any{"name": "r", "keywords": []string{"hi"}, "responseType": "transfer", "transferReason": "x", "fixedText": "y"},
			map[string]string{"/fixedText": "only a fixed response"}},
		{"a rule needs a keyword or a pattern",
			map[string]any{"name": "r", "responseType": "rag"},
			map[string]string{"/keywords": "at least one keyword or pattern"}},
		{"a keyword of punctuation only never matches",
			map[string]any{"name": "r", "keywords": []string{"ok", "!!!"}, "responseType": "rag"},
			map[string]string{"/keywords/1": "no letters or digits"}},
		{"the flow must exist in the tenant",
			map[string]any{"name": "r", "keywords": []string{"hi"}, "responseType": "flow", "flowId": "flow_0192f3b4c5d67e8f9a0b1c2d3e4f5a6b"},
			map[string]string{"/flowId": "no such script flow"}},
		{"knowledge bases must exist in the tenant",
			map[string]any{"name": "r", "keywords": []string{"hi"}, "responseType": "rag", "kbIds": []string{kb, otherKB}},
			map[string]string{"/kbIds/1": "no such knowledge base"}},
		{"the contract's limits apply",
			map[string]any{"name": "r", "keywords": []string{"hi"}, "responseType": "teleport"},
			map[string]string{"/responseType": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(req{method: "POST", path: intentRulesPath, tenant: "acme", body: c.body})
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			assert.Equal(t, "validation_failed", r.Code(t))
			got := fieldErrors(t, r)
			for field, msg := range c.fields {
				require.Contains(t, got, field, "%s", r.Body)
				assert.Contains(t, got[field], msg)
			}
		})
	}
	t.Run("put is checked like create", func(t *testing.T) {
		rule := e.createRule("acme", map[string]any{"name": "ok", "keywords": []string{"hi"}, "responseType": "rag", "kbIds": []string{kb}})
		r := e.do(req{method: "PUT", path: intentRulesPath + "/" + rule["id"].(string), tenant: "acme", body: map[string]any{
			"name": "ok", "keywords": []string{"hi"}, "keywordMode": "any", "patterns": []string{`(?P<x`}, "priority": 0,
			"responseType": "rag", "enabled": true, "version": 1,
		}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r)["/patterns/0"], "error parsing regexp")
		assert.EqualValues(t, 1, e.do(req{method: "GET", path: intentRulesPath + "/" + rule["id"].(string), tenant: "acme"}).JSON(t)["version"])
	})
	assert.Empty(t, e.do(req{method: "GET", path: intentRulesPath, tenant: "acme"}).JSON(t)["items"].([]any)[1:], "only the valid rule was stored")
}

func TestIntentRuleTest(t *testing.T) {
	e := newEnv(t)
	refunds := e.createRule("acme", map[string]any{"name": "Refunds", "keywords": []string{"refund"}, "priority": 10,
		"responseType": "fixed", "fixedText": "Refunds take 5 days."})["id"].(string)
	orders := e.createRule("acme", map[string]any{"name": "Orders", "patterns": []string{`order\s*#\d+`}, "priority": 5,
		"responseType": "rag"})["id"].(string)
	vip := e.createRule("acme", map[string]any{"name": "VIP", "keywords": []string{"refund", "now"}, "keywordMode": "all",
		"priority": 100, "responseType": "transfer", "transferReason": "urgent", "enabled": false})["id"].(string)
	test := func(id, message string) map[string]any {
		t.Helper()
		r := e.do(req{method: "POST", path: intentRulesPath + "/" + id + "/test", tenant: "acme", body: map[string]any{"message": message}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)
	}
	ids := func(v any) []string {
		var out []string
		for _, m := range v.([]any) {
			out = append(out, m.(map[string]any)["ruleId"].(string))
		}
		return out
	}
	message := "I want a REFUND for Order #123 now!"

	t.Run("a matching rule that loses on priority sees the winner and the conflicts", func(t *testing.T) {
		res := test(orders, message)
		assert.Equal(t, true, res["matches"])
		assert.Equal(t, []any{`order\s*#\d+`}, res["patterns"])
		assert.Equal(t, []any{}, res["keywords"])
		assert.Equal(t, false, res["wouldWin"])
		assert.Equal(t, []string{refunds}, ids(res["conflicts"]), "the disabled rule is no conflict")
		winner := res["winner"].(map[string]any)
		assert.Equal(t, refunds, winner["ruleId"])
		assert.EqualValues(t, 10, winner["priority"])
		assert.Equal(t, []any{"refund"}, winner["keywords"])
	})
	t.Run("the winner wins", func(t *testing.T) {
		res := test(refunds, message)
		assert.Equal(t, true, res["wouldWin"])
		assert.Equal(t, refunds, res["winner"].(map[string]any)["ruleId"])
		assert.Equal(t, []string{orders}, ids(res["conflicts"]))
	})
	t.Run("a disabled rule is tested and would win once enabled", func(t *testing.T) {
		res := test(vip, message)
		assert.Equal(t, false, res["enabled"])
		assert.Equal(t, true, res["matches"])
		assert.Equal(t, []any{"refund", "now"}, res["keywords"])
		assert.Equal(t, true, res["wouldWin"])
		assert.Equal(t, refunds, res["winner"].(map[string]any)["ruleId"], "while disabled, another rule wins")
		assert.Equal(t, []string{refunds, orders}, ids(res["conflicts"]))
	})
	t.Run("an all-keywords rule lists a partial hit but does not match", func(t *testing.T) {
		res := test(vip, "refund please")
		assert.Equal(t, false, res["matches"])
		assert.Equal(t, []any{"refund"}, res["keywords"])
		assert.Equal(t, false, res["wouldWin"])
	})
	t.Run("no match anywhere has no winner", func(t *testing.T) {
		res := test(refunds, "hello there")
		assert.Equal(t, false, res["matches"])
		assert.Nil(t, res["winner"])
		assert.Equal(t, []any{}, res["conflicts"])
	})
	t.Run("an unknown rule is 404", func(t *testing.T) {
		r := e.do(req{method: "POST", path: intentRulesPath + "/rule_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c/test", tenant: "acme",
			body: map[string]any{"message": "refund"}})
		assert.Equal(t, http.StatusNotFound, r.Status)
		assert.Equal(t, "not_found", r.Code(t))
	})
}

func TestIntentRulesAreTenantIsolated(t *testing.T) {
	e := newEnv(t)
	rule := e.createRule("acme", map[string]any{"name": "Refunds", "keywords": []string{"refund"}, "responseType": "rag"})
	id := rule["id"].(string)
	path := intentRulesPath + "/" + id
	require.NoError(t, e.app.store.RecordIntentOutcome(t.Context(), "acme", intentHit(id, "s1", "m1"), time.Now()))

	for _, c := range []req{
		{method: "GET", path: path},
		{method: "PUT", path: path, body: map[string]any{"name": "stolen", "keywords": []string{"x"}, "keywordMode": "any",
			"patterns": []string{}, "priority": 0, "responseType": "rag", "enabled": true, "version": 1}},
		{method: "POST", path: path + "/test", body: map[string]any{"message": "refund"}},
		{method: "GET", path: "/api/v1/admin/monitoring/intent-rules/" + id + "/hits"},
		{method: "DELETE", path: path},
	} {
		c.tenant = "globex"
		r := e.do(c)
		assert.Equal(t, http.StatusNotFound, r.Status, "%s %s from another tenant: %s", c.method, c.path, r.Body)
		assert.Equal(t, "not_found", r.Code(t))
	}
	assert.Empty(t, e.do(req{method: "GET", path: intentRulesPath, tenant: "globex"}).JSON(t)["items"])
	stats := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules", tenant: "globex"}).JSON(t)
	assert.Empty(t, stats["items"])
	assert.EqualValues(t, 0, stats["evaluated"], "acme's evaluations are not globex's")
	got := e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)
	assert.Equal(t, rule, got, "nothing changed in acme")

	t.Run("a hit naming another tenant's rule is not stored there", func(t *testing.T) {
		require.NoError(t, e.app.store.RecordIntentOutcome(t.Context(), "globex", intentHit(id, "s2", "m2"), time.Now()))
		hits := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules/" + id + "/hits", tenant: "acme"}).JSON(t)
		assert.Len(t, hits["items"], 1)
	})
}

// The writing replica drops its cached matcher at once; another replica
// drops its own when the change notification arrives, well before the TTL.
func TestIntentRuleWritesDropTheCache(t *testing.T) {
	one := newEnv(t)
	two := startEnv(t, one.cfg)
	one.waitReplicasListening(2)
	ctx := t.Context()
	best := func(e *env, message string) (string, bool) {
		t.Helper()
		m, err := e.app.intentRules.Matcher(ctx, "acme")
		require.NoError(t, err)
		hit, ok := m.Best(message)
		return hit.Rule.ID, ok
	}
	_, ok := best(one, "hello")
	require.False(t, ok, "no rules yet; the empty matcher is cached now")

	rule := one.createRule("acme", map[string]any{"name": "Greeting", "keywords": []string{"hello"}, "responseType": "fixed", "fixedText": "Hi!"})
	id := rule["id"].(string)
	got, ok := best(one, "Hello!")
	require.True(t, ok, "a create drops the writer's cache at once")
	assert.Equal(t, id, got)
	assert.Eventually(t, func() bool { _, ok := best(two, "hello"); return ok }, 3*time.Second, 10*time.Millisecond,
		"the other replica sees the new rule")

	r := one.do(req{method: "PUT", path: intentRulesPath + "/" + id, tenant: "acme", body: map[string]any{
		"name": "Greeting", "keywords": []string{"bonjour"}, "keywordMode": "any", "patterns": []string{}, "priority": 0,
		"responseType": "fixed", "fixedText": "Salut !", "enabled": true, "version": 1,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	_, ok = best(one, "hello")
	assert.False(t, ok, "after the PUT the old keyword no longer matches on the writer")
	m, err := one.app.intentRules.Matcher(ctx, "acme")
	require.NoError(t, err)
	hit, ok := m.Best("bonjour")
	require.True(t, ok)
	assert.Equal(t, "Salut !", hit.Rule.FixedText)
	assert.Equal(t, intent.ResponseFixed, hit.Rule.ResponseType)
	assert.Eventually(t, func() bool { _, ok := best(two, "hello"); return !ok }, 3*time.Second, 10*time.Millisecond,
		"the other replica drops the old rule too")

	require.Equal(t, http.StatusNoContent, one.do(req{method: "DELETE", path: intentRulesPath + "/" + id, tenant: "acme"}).Status)
	_, ok = best(one, "bonjour")
	assert.False(t, ok, "a delete drops the writer's cache at once")
	assert.Eventually(t, func() bool { _, ok := best(two, "bonjour"); return !ok }, 3*time.Second, 10*time.Millisecond)
}

func TestIntentRuleMonitoring(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	store := e.app.store
	a := e.createRule("acme", map[string]any{"name": "A", "keywords": []string{"refund"}, "responseType": "rag"})["id"].(string)
	b := e.createRule("acme", map[string]any{"name": "B", "keywords": []string{"order"}, "responseType": "rag"})["id"].(string)
	idle := e.createRule("acme", map[string]any{"name": "Idle", "keywords": []string{"never"}, "responseType": "rag"})["id"].(string)

	now := time.Now().UTC()
	// Within the default range (the last 7 days): 3 hits of A, 1 of B and
	// 6 messages no rule matched, so 10 evaluations.
	for i, at := range []time.Duration{3 * time.Hour, 2 * time.Hour, time.Hour} {
		h := intentHit(a, "ses_1", "msg_a"+string(rune('0'+i)))
		h.Keywords = []string{"refund"}
		require.NoError(t, store.RecordIntentOutcome(ctx, "acme", h, now.Add(-at)))
	}
	hb := intentHit(b, "ses_2", "msg_b")
	hb.Patterns = []string{`order\s*#\d+`}
	require.NoError(t, store.RecordIntentOutcome(ctx, "acme", hb, now.Add(-30*time.Minute)))
	for range 6 {
		require.NoError(t, store.RecordIntentOutcome(ctx, "acme", nil, now.Add(-time.Minute)))
	}
	// Ten days ago, outside the default range: one hit of A.
	old := intentHit(a, "ses_0", "msg_old")
	require.NoError(t, store.RecordIntentOutcome(ctx, "acme", old, now.Add(-10*24*time.Hour)))

	byRule := func(body map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, it := range body["items"].([]any) {
			m := it.(map[string]any)
			out[m["ruleId"].(string)] = m
		}
		return out
	}
	t.Run("the last 7 days by default", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		body := r.JSON(t)
		assert.EqualValues(t, 10, body["evaluated"])
		from, err := time.Parse(time.RFC3339, body["from"].(string))
		require.NoError(t, err)
		to, err := time.Parse(time.RFC3339, body["to"].(string))
		require.NoError(t, err)
		assert.Equal(t, from.Truncate(time.Hour), from, "the range is on whole hours")
		assert.Equal(t, to.Truncate(time.Hour), to)
		assert.WithinDuration(t, now.Add(-7*24*time.Hour), from, time.Hour)
		assert.True(t, !to.Before(now) && to.Sub(now) <= time.Hour, "to is now, rounded up: %s", to)

		rules := byRule(body)
		require.Len(t, rules, 3)
		assert.EqualValues(t, 3, rules[a]["hits"])
		assert.InDelta(t, 0.3, rules[a]["hitRate"], 1e-9)
		last, err := time.Parse(time.RFC3339Nano, rules[a]["lastHitAt"].(string))
		require.NoError(t, err)
		assert.WithinDuration(t, now.Add(-time.Hour), last, time.Millisecond)
		assert.EqualValues(t, 1, rules[b]["hits"])
		assert.InDelta(t, 0.1, rules[b]["hitRate"], 1e-9)
		assert.EqualValues(t, 0, rules[idle]["hits"])
		assert.EqualValues(t, 0, rules[idle]["hitRate"])
		assert.Nil(t, rules[idle]["lastHitAt"], "a rule that never hit has no last hit")
	})
	t.Run("an explicit range", func(t *testing.T) {
		q := "?from=" + now.Add(-11*24*time.Hour).Format(time.RFC3339) + "&to=" + now.Add(-9*24*time.Hour).Format(time.RFC3339)
		body := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules" + q, tenant: "acme"}).JSON(t)
		assert.EqualValues(t, 1, body["evaluated"])
		rules := byRule(body)
		assert.EqualValues(t, 1, rules[a]["hits"])
		assert.EqualValues(t, 1, rules[a]["hitRate"])
		assert.EqualValues(t, 0, rules[b]["hits"])
		assert.NotNil(t, rules[b]["lastHitAt"], "the last hit is the latest ever, whatever the range")
	})
	t.Run("the stats page through the rules", func(t *testing.T) {
		var seen []string
		p := "/api/v1/admin/monitoring/intent-rules?limit=2"
		for {
			body := e.do(req{method: "GET", path: p, tenant: "acme"}).JSON(t)
			assert.EqualValues(t, 10, body["evaluated"], "every page tells the range's evaluations")
			for id := range byRule(body) {
				seen = append(seen, id)
			}
			next, ok := body["nextCursor"].(string)
			if !ok {
				break
			}
			p = "/api/v1/admin/monitoring/intent-rules?limit=2&cursor=" + next
		}
		assert.ElementsMatch(t, []string{a, b, idle}, seen)
	})
	t.Run("a bad range is 400", func(t *testing.T) {
		for _, q := range []string{
			"?from=" + now.Format(time.RFC3339) + "&to=" + now.Add(-time.Hour).Format(time.RFC3339),
			"?from=" + now.Add(-400*24*time.Hour).Format(time.RFC3339),
			"?from=yesterday",
		} {
			r := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules" + q, tenant: "acme"})
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", q, r.Body)
			assert.Equal(t, "validation_failed", r.Code(t))
		}
	})
	t.Run("a rule's hits page newest first with what matched", func(t *testing.T) {
		var hits []map[string]any
		p := "/api/v1/admin/monitoring/intent-rules/" + a + "/hits?limit=3"
		for {
			r := e.do(req{method: "GET", path: p, tenant: "acme"})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			body := r.JSON(t)
			for _, it := range body["items"].([]any) {
				hits = append(hits, it.(map[string]any))
			}
			next, ok := body["nextCursor"].(string)
			if !ok {
				break
			}
			p = "/api/v1/admin/monitoring/intent-rules/" + a + "/hits?limit=3&cursor=" + next
		}
		require.Len(t, hits, 4)
		var msgs []string
		for _, h := range hits {
			msgs = append(msgs, h["messageId"].(string))
		}
		assert.Equal(t, []string{"msg_a2", "msg_a1", "msg_a0", "msg_old"}, msgs)
		assert.Equal(t, "ses_1", hits[0]["sessionId"])
		assert.Equal(t, []any{"refund"}, hits[0]["keywords"])
		assert.Equal(t, []any{}, hits[0]["patterns"])
		bh := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules/" + b + "/hits", tenant: "acme"}).JSON(t)["items"].([]any)
		require.Len(t, bh, 1)
		assert.Equal(t, []any{`order\s*#\d+`}, bh[0].(map[string]any)["patterns"])
	})
	t.Run("a forged cursor is 400", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules/" + a + "/hits?cursor=bm9wZQ", tenant: "acme"})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, "invalid_cursor", r.Code(t))
	})
	t.Run("a hit of a deleted rule is still an evaluation", func(t *testing.T) {
		require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: intentRulesPath + "/" + idle, tenant: "acme"}).Status)
		gone := intentHit(idle, "ses_3", "msg_late")
		require.NoError(t, store.RecordIntentOutcome(ctx, "acme", gone, now))
		body := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules", tenant: "acme"}).JSON(t)
		assert.EqualValues(t, 11, body["evaluated"])
		assert.NotContains(t, byRule(body), idle)
		var n int
		require.NoError(t, e.db.QueryRow(context.Background(), "SELECT count(*) FROM intent_hits WHERE rule_id = $1", idle).Scan(&n))
		assert.Zero(t, n)
	})
	t.Run("deleting a rule deletes its hits", func(t *testing.T) {
		require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: intentRulesPath + "/" + a, tenant: "acme"}).Status)
		var n int
		require.NoError(t, e.db.QueryRow(context.Background(), "SELECT count(*) FROM intent_hits WHERE rule_id = $1", a).Scan(&n))
		assert.Zero(t, n)
		r := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules/" + a + "/hits", tenant: "acme"})
		assert.Equal(t, http.StatusNotFound, r.Status)
	})
}

// Replies of one tenant that count their evaluations in the same hour at
// the same time spread over the hour's stripes, so they seldom wait for
// one row's lock, and the monitoring adds every one of them up.
func TestIntentEvaluationsOfOneHourAreStripedAndAllCounted(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	e.createRule("acme", map[string]any{"name": "A", "keywords": []string{"refund"}, "responseType": "rag"})
	at := time.Now().UTC().Add(-time.Minute)
	const n = 64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range n / 8 {
				assert.NoError(t, e.app.store.RecordIntentOutcome(ctx, "acme", nil, at))
			}
		})
	}
	wg.Wait()
	var rows, stripes int
	require.NoError(t, e.db.QueryRow(ctx, "SELECT count(*), count(DISTINCT stripe) FROM intent_evaluations WHERE tenant_id = 'acme'").Scan(&rows, &stripes))
	assert.Greater(t, stripes, 1, "%d evaluations went to one row", n)
	assert.Equal(t, rows, stripes, "one row per stripe of the hour")

	r := e.do(req{method: "GET", path: "/api/v1/admin/monitoring/intent-rules", tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.EqualValues(t, n, r.JSON(t)["evaluated"])
}

// intentHit is a hit of rule in a session's message, as the message
// pipeline records it.
func intentHit(rule, session, message string) *domain.IntentHit {
	return &domain.IntentHit{RuleID: rule, SessionID: session, MessageID: message}
}

func TestIntentRulesPerTenantAreLimited(t *testing.T) {
	e := newEnv(t)
	e.createRule("acme", map[string]any{"name": "first", "keywords": []string{"hi"}, "responseType": "rag"})
	_, err := e.db.Exec(t.Context(), `INSERT INTO intent_rules (id, tenant_id, name, keywords, keyword_mode, response_type)
		SELECT 'rule_' || lpad(to_hex(n), 32, '0'), 'acme', 'bulk ' || n, '{hi}', 'any', 'rag'
		FROM generate_series(1, $1 - 1) n`, domain.MaxIntentRulesPerTenant)
	require.NoError(t, err)
	r := e.do(req{method: "POST", path: intentRulesPath, tenant: "acme", body: map[string]any{"name": "one too many", "keywords": []string{"x"}, "responseType": "rag"}})
	assert.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
	assert.Equal(t, "conflict", r.Code(t))
	assert.Contains(t, r.JSON(t)["detail"], "1000")
	e.createRule("globex", map[string]any{"name": "one too many", "keywords": []string{"x"}, "responseType": "rag"})

	m, err := e.app.intentRules.Matcher(t.Context(), "acme")
	require.NoError(t, err, "a full tenant's rules all load and compile")
	assert.Len(t, m.All("hi"), domain.MaxIntentRulesPerTenant)
}
