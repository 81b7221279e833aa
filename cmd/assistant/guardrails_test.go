package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

const (
	wordsURL    = "/api/v1/admin/guardrails/forbidden-words"
	rulesURL    = "/api/v1/admin/guardrails/behavior-rules"
	guardSetURL = "/api/v1/admin/guardrails/settings"
	guardTstURL = "/api/v1/admin/guardrails/test"
	guardMonURL = "/api/v1/admin/monitoring/guardrails"
)

// guardWord adds a forbidden word in tenant and returns it.
func (e *env) guardWord(tenant string, body map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: wordsURL, tenant: tenant, body: body})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

// guardRule adds a behaviour rule in tenant and returns it.
func (e *env) guardRule(tenant string, body map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: rulesURL, tenant: tenant, body: body})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

// guardTest runs the test bench on text at stage.
func (e *env) guardTest(tenant, text, stage string) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: guardTstURL, tenant: tenant, body: map[string]any{"text": text, "stage": stage}})
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

func TestForbiddenWordCRUD(t *testing.T) {
	e := newEnv(t)
	w := e.guardWord("acme", map[string]any{"word": "  Cheap "})
	id := w["id"].(string)
	assert.Regexp(t, `^fw_[0-9a-f]{32}$`, id)
	assert.Equal(t, "Cheap", w["word"], "surrounding spaces are dropped")
	assert.Equal(t, "exact", w["matchMode"])
	assert.Equal(t, "mask", w["action"])
	assert.Equal(t, "", w["replacement"])
	assert.EqualValues(t, 1, w["version"])
	path := wordsURL + "/" + id

	t.Run("the same word in another case is a conflict", func(t *testing.T) {
		r := e.do(req{method: "POST", path: wordsURL, tenant: "acme", body: map[string]any{"word": "CHEAP", "action": "block"}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "conflict", r.Code(t))
		assert.Contains(t, fieldErrors(t, r), "/word")
	})
	t.Run("a word too long once normalised is 400 on /word", func(t *testing.T) {
		r := e.do(req{method: "POST", path: wordsURL, tenant: "acme", body: map[string]any{"word": strings.Repeat("a", 65)}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		assert.Equal(t, "validation_failed", r.Code(t))
		assert.Contains(t, fieldErrors(t, r)["/word"], "longer than 64 characters")
	})
	t.Run("only a masked word has a replacement", func(t *testing.T) {
		r := e.do(req{method: "POST", path: wordsURL, tenant: "acme", body: map[string]any{"word": "scam", "action": "block", "replacement": "x"}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r), "/replacement")
	})
	t.Run("the contract refuses an unknown action and an empty word", func(t *testing.T) {
		r := e.do(req{method: "POST", path: wordsURL, tenant: "acme", body: map[string]any{"word": "x", "action": "delete"}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		r = e.do(req{method: "POST", path: wordsURL, tenant: "acme", body: map[string]any{"word": "   "}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
	})
	t.Run("update bumps the version; a stale version is a conflict", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{
			"word": "cheap", "matchMode": "contains", "action": "mask", "replacement": "affordable", "version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := r.JSON(t)
		assert.EqualValues(t, 2, got["version"])
		assert.Equal(t, "contains", got["matchMode"])
		assert.Equal(t, "affordable", got["replacement"])

		stale := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"word": "x", "matchMode": "exact", "action": "block", "version": 1}})
		assert.Equal(t, http.StatusConflict, stale.Status)
		assert.Equal(t, "version_conflict", stale.Code(t))
		assert.Equal(t, "cheap", e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["word"], "nothing changed")
	})
	t.Run("another tenant's word is 404", func(t *testing.T) {
		for _, r := range []req{
			{method: "GET", path: path, tenant: "globex"},
			{method: "PUT", path: path, tenant: "globex", body: map[string]any{"word": "x", "matchMode": "exact", "action": "mask", "version": 2}},
			{method: "DELETE", path: path, tenant: "globex"},
		} {
			res := e.do(r)
			assert.Equal(t, http.StatusNotFound, res.Status, r.method)
			assert.Equal(t, "not_found", res.Code(t))
		}
		list := e.do(req{method: "GET", path: wordsURL, tenant: "globex"}).JSON(t)
		assert.Empty(t, list["items"])
		assert.Equal(t, "cheap", e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["word"])
	})
	t.Run("the list pages newest first", func(t *testing.T) {
		made := []string{id}
		for i := range 4 {
			made = append(made, e.guardWord("acme", map[string]any{"word": fmt.Sprintf("word%d", i)})["id"].(string))
		}
		var seen []string
		next := wordsURL + "?limit=2"
		for next != "" {
			body := e.do(req{method: "GET", path: next, tenant: "acme"}).JSON(t)
			for _, it := range body["items"].([]any) {
				seen = append(seen, it.(map[string]any)["id"].(string))
			}
			next = ""
			if c, ok := body["nextCursor"].(string); ok {
				next = wordsURL + "?limit=2&cursor=" + c
			}
		}
		require.Len(t, seen, 5)
		for i := range made {
			assert.Equal(t, made[len(made)-1-i], seen[i])
		}
	})
	t.Run("a chat key may not manage guardrails", func(t *testing.T) {
		_, chat := e.createKey(ptr("acme"), "chat")
		r := e.do(req{method: "GET", path: wordsURL, tenant: "acme", key: chat})
		assert.Equal(t, http.StatusForbidden, r.Status)
		assert.Equal(t, "forbidden", r.Code(t))
	})
	t.Run("delete removes it", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
	})
}

func TestBehaviorRuleCRUD(t *testing.T) {
	e := newEnv(t)
	second := e.guardRule("acme", map[string]any{"name": "Second", "kind": "contains", "pattern": "refund", "action": "append",
		"text": "Refunds take 5 days.", "position": 20})
	first := e.guardRule("acme", map[string]any{"name": "First", "kind": "regex", "pattern": `\baccount (number|no\.?) \d{6,}`,
		"action": "replace", "text": "I can't share account numbers.", "position": 10})
	last := e.guardRule("acme", map[string]any{"name": "Hotline", "kind": "high_risk", "category": "self_harm", "action": "append",
		"text": "Call 988 any time."})
	assert.Regexp(t, `^br_[0-9a-f]{32}$`, first["id"])
	assert.Equal(t, true, first["enabled"], "enabled by default")
	assert.EqualValues(t, 21, last["position"], "without a position a rule goes last")
	assert.Equal(t, "", last["pattern"])

	t.Run("the list is in the order the rules apply, and pages", func(t *testing.T) {
		var seen []string
		next := rulesURL + "?limit=2"
		for next != "" {
			body := e.do(req{method: "GET", path: next, tenant: "acme"}).JSON(t)
			for _, it := range body["items"].([]any) {
				seen = append(seen, it.(map[string]any)["name"].(string))
			}
			next = ""
			if c, ok := body["nextCursor"].(string); ok {
				next = rulesURL + "?limit=2&cursor=" + url.QueryEscape(c)
			}
		}
		assert.Equal(t, []string{"First", "Second", "Hotline"}, seen)
	})
	t.Run("a bad regular expression is 400 on /pattern with the parser's complaint", func(t *testing.T) {
		r := e.do(req{method: "POST", path: rulesURL, tenant: "acme", body: map[string]any{
			"name": "Broken", "kind": "regex", "pattern": "(unclosed", "action": "transfer"}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		assert.Equal(t, "validation_failed", r.Code(t))
		msg := fieldErrors(t, r)["/pattern"]
		assert.Contains(t, msg, `rule "Broken"`)
		assert.Contains(t, msg, "missing closing )")
		assert.Len(t, e.do(req{method: "GET", path: rulesURL, tenant: "acme"}).JSON(t)["items"], 3, "nothing was stored")
	})
	t.Run("a regex that matches everything is refused", func(t *testing.T) {
		r := e.do(req{method: "POST", path: rulesURL, tenant: "acme", body: map[string]any{"name": "All", "kind": "regex", "pattern": "x*", "action": "transfer"}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r)["/pattern"], "matches the empty text")
	})
	t.Run("fields that do not go with the kind or action are 400", func(t *testing.T) {
		cases := map[string]map[string]any{
			"/category": {"name": "c", "kind": "high_risk", "category": "no_such_category", "action": "transfer"},
			"/pattern":  {"name": "p", "kind": "high_risk", "pattern": "x", "action": "transfer"},
			"/text":     {"name": "t", "kind": "contains", "pattern": "x", "action": "replace"},
		}
		for field, body := range cases {
			r := e.do(req{method: "POST", path: rulesURL, tenant: "acme", body: body})
			require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", field, r.Body)
			assert.Contains(t, fieldErrors(t, r), field)
		}
		r := e.do(req{method: "POST", path: rulesURL, tenant: "acme", body: map[string]any{"name": "c", "kind": "contains", "pattern": "x", "category": "threat", "action": "transfer"}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
	})
	path := rulesURL + "/" + first["id"].(string)
	t.Run("update moves and disables a rule; a stale version is a conflict", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "First", "kind": "regex",
			"pattern": `\baccount (number|no\.?) \d{6,}`, "action": "replace", "text": "No.", "enabled": false, "position": 30, "version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.EqualValues(t, 2, r.JSON(t)["version"])
		assert.Equal(t, false, r.JSON(t)["enabled"])
		items := e.do(req{method: "GET", path: rulesURL, tenant: "acme"}).JSON(t)["items"].([]any)
		assert.Equal(t, "First", items[2].(map[string]any)["name"], "now last")

		stale := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "x", "kind": "contains", "pattern": "x",
			"action": "transfer", "enabled": true, "position": 0, "version": 1}})
		assert.Equal(t, http.StatusConflict, stale.Status)
		assert.Equal(t, "version_conflict", stale.Code(t))
		bad := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "First", "kind": "regex", "pattern": "a{2,1}",
			"action": "transfer", "enabled": false, "position": 30, "version": 2}})
		assert.Equal(t, http.StatusBadRequest, bad.Status, "a disabled rule is validated too")
		assert.Contains(t, fieldErrors(t, bad), "/pattern")
	})
	t.Run("another tenant's rule is 404", func(t *testing.T) {
		for _, r := range []req{
			{method: "GET", path: path, tenant: "globex"},
			{method: "PUT", path: path, tenant: "globex", body: map[string]any{"name": "x", "kind": "contains", "pattern": "x",
				"action": "transfer", "enabled": true, "position": 0, "version": 2}},
			{method: "DELETE", path: path, tenant: "globex"},
		} {
			assert.Equal(t, http.StatusNotFound, e.do(r).Status, r.method)
		}
	})
	t.Run("delete removes it", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: rulesURL + "/" + second["id"].(string), tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: rulesURL + "/" + second["id"].(string), tenant: "acme"}).Status)
	})
}

func TestGuardrailSettingsRoundTrip(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "GET", path: guardSetURL, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	s := r.JSON(t)
	assert.EqualValues(t, 0, s["version"])
	assert.Nil(t, s["updatedAt"])
	assert.Equal(t, "", s["safeText"])
	assert.Empty(t, s["highRisk"])
	assert.NotEmpty(t, s["defaultSafeText"])
	var categories []string
	for _, l := range s["defaultHighRisk"].([]any) {
		categories = append(categories, l.(map[string]any)["category"].(string))
	}
	assert.Equal(t, []string{"self_harm", "threat", "legal_emergency", "medical_emergency"}, categories)

	body := map[string]any{"safeText": "A colleague will take over.", "skipDefaultHighRisk": false, "version": 0,
		"highRisk": []any{map[string]any{"category": "fraud", "keywords": []string{"wire me the money"}, "patterns": []string{`\bgift cards?\b`}}}}
	r = e.do(req{method: "PUT", path: guardSetURL, tenant: "acme", body: body})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	s = r.JSON(t)
	assert.EqualValues(t, 1, s["version"])
	assert.NotNil(t, s["updatedAt"])
	assert.Equal(t, "A colleague will take over.", s["safeText"])
	got := e.do(req{method: "GET", path: guardSetURL, tenant: "acme"}).JSON(t)
	assert.Equal(t, s, got, "the saved settings read back the same")
	assert.Equal(t, "fraud", got["highRisk"].([]any)[0].(map[string]any)["category"])

	t.Run("a stale version, or a second first save, is a conflict", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: guardSetURL, tenant: "acme", body: body})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "version_conflict", r.Code(t))
	})
	t.Run("a bad pattern names its place in the body", func(t *testing.T) {
		bad := map[string]any{"safeText": "", "skipDefaultHighRisk": false, "version": 1,
			"highRisk": []any{map[string]any{"category": "fraud", "keywords": []string{}, "patterns": []string{"ok", "(?P<x"}}}}
		r := e.do(req{method: "PUT", path: guardSetURL, tenant: "acme", body: bad})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		assert.Contains(t, fieldErrors(t, r), "/highRisk/0/patterns/1")
	})
	t.Run("removing a category a rule names is refused, naming the rule", func(t *testing.T) {
		e.guardRule("acme", map[string]any{"name": "Fraud desk", "kind": "high_risk", "category": "fraud", "action": "transfer"})
		r := e.do(req{method: "PUT", path: guardSetURL, tenant: "acme", body: map[string]any{"safeText": "", "skipDefaultHighRisk": false,
			"highRisk": []any{}, "version": 1}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		assert.Contains(t, fieldErrors(t, r)["/highRisk"], `"Fraud desk"`)
		assert.EqualValues(t, 1, e.do(req{method: "GET", path: guardSetURL, tenant: "acme"}).JSON(t)["version"], "nothing changed")
	})
	t.Run("settings are per tenant", func(t *testing.T) {
		other := e.do(req{method: "GET", path: guardSetURL, tenant: "globex"}).JSON(t)
		assert.EqualValues(t, 0, other["version"])
		assert.Empty(t, other["highRisk"])
	})
}

func TestGuardrailTestBench(t *testing.T) {
	e := newEnv(t)
	mask := e.guardWord("acme", map[string]any{"word": "cheap"})["id"].(string)
	block := e.guardWord("acme", map[string]any{"word": "scam", "action": "block"})["id"].(string)
	transfer := e.guardWord("acme", map[string]any{"word": "lawsuit", "action": "transfer"})["id"].(string)
	e.guardWord("acme", map[string]any{"word": "垃圾", "matchMode": "contains"})
	notice := e.guardRule("acme", map[string]any{"name": "Refunds", "kind": "contains", "pattern": "refund", "action": "append",
		"text": "Refunds take 5 days."})["id"].(string)

	t.Run("a masked word keeps the answer, with its span in bytes and characters", func(t *testing.T) {
		text := "价格很cheap, refund possible"
		v := e.guardTest("acme", text, "output")
		assert.Equal(t, "价格很*****, refund possible\n\nRefunds take 5 days.", v["text"])
		assert.Equal(t, false, v["blocked"])
		assert.Equal(t, false, v["transfer"])
		assert.Nil(t, v["reason"])
		hits := v["hits"].([]any)
		require.Len(t, hits, 2)
		h := hits[0].(map[string]any)
		assert.Equal(t, "word", h["kind"])
		assert.Equal(t, mask, h["id"])
		assert.Equal(t, "mask", h["action"])
		assert.Equal(t, "cheap", h["matched"])
		assert.EqualValues(t, 9, h["start"], "three Chinese characters are 9 bytes")
		assert.EqualValues(t, 14, h["end"])
		assert.EqualValues(t, 3, h["charStart"])
		assert.EqualValues(t, 8, h["charEnd"])
		assert.Equal(t, text[9:14], "cheap")
		r := hits[1].(map[string]any)
		assert.Equal(t, "rule", r["kind"])
		assert.Equal(t, notice, r["id"])
		assert.Equal(t, "append", r["action"])
	})
	t.Run("a Chinese contains word is masked inside other text", func(t *testing.T) {
		v := e.guardTest("acme", "这是垃圾产品", "output")
		assert.Equal(t, "这是**产品", v["text"])
		h := v["hits"].([]any)[0].(map[string]any)
		assert.EqualValues(t, 6, h["start"])
		assert.EqualValues(t, 2, h["charStart"])
		assert.EqualValues(t, 4, h["charEnd"])
	})
	t.Run("a blocking word withholds the answer", func(t *testing.T) {
		v := e.guardTest("acme", "This is not a scam, honestly.", "output")
		assert.Equal(t, true, v["blocked"])
		assert.Equal(t, false, v["transfer"])
		assert.Equal(t, "word:"+block, v["reason"])
		assert.NotContains(t, v["text"], "scam")
	})
	t.Run("a transferring word hands over", func(t *testing.T) {
		v := e.guardTest("acme", "We could face a LAWSUIT.", "output")
		assert.Equal(t, true, v["transfer"])
		assert.Equal(t, "word:"+transfer, v["reason"])
		assert.Equal(t, "LAWSUIT", v["hits"].([]any)[0].(map[string]any)["matched"])
	})
	t.Run("a high-risk customer message is handed over with the safe text", func(t *testing.T) {
		v := e.guardTest("acme", "I want to kill myself", "input")
		assert.Equal(t, true, v["transfer"])
		assert.Equal(t, "high_risk:self_harm", v["reason"])
		h := v["hits"].([]any)[0].(map[string]any)
		assert.Equal(t, "high_risk", h["kind"])
		assert.Nil(t, h["id"])
		assert.Equal(t, "self_harm", h["category"])
		assert.Equal(t, "kill myself", h["matched"])
		assert.NotEqual(t, "I want to kill myself", v["text"])
	})
	t.Run("the input stage ignores forbidden words", func(t *testing.T) {
		v := e.guardTest("acme", "is this a cheap scam?", "input")
		assert.Equal(t, "is this a cheap scam?", v["text"])
		assert.Empty(t, v["hits"])
	})
	t.Run("the stage defaults to output", func(t *testing.T) {
		r := e.do(req{method: "POST", path: guardTstURL, tenant: "acme", body: map[string]any{"text": "cheap"}})
		require.Equal(t, http.StatusOK, r.Status)
		assert.Equal(t, "output", r.JSON(t)["stage"])
		assert.Equal(t, "*****", r.JSON(t)["text"])
	})
	t.Run("the tenant's own high-risk list and safe text apply", func(t *testing.T) {
		require.Equal(t, http.StatusOK, e.do(req{method: "PUT", path: guardSetURL, tenant: "acme", body: map[string]any{
			"safeText": "Please hold for a colleague.", "skipDefaultHighRisk": true, "version": 0,
			"highRisk": []any{map[string]any{"category": "fraud", "keywords": []string{"gift card"}, "patterns": []string{}}}}}).Status)
		v := e.guardTest("acme", "Pay me with a Gift Card", "input")
		assert.Equal(t, "high_risk:fraud", v["reason"])
		assert.Equal(t, "Please hold for a colleague.", v["text"])
		v = e.guardTest("acme", "I want to kill myself", "input")
		assert.Equal(t, false, v["transfer"], "the built-in lists are skipped")
	})
	t.Run("another tenant has none of these guardrails", func(t *testing.T) {
		v := e.guardTest("globex", "a cheap scam", "output")
		assert.Equal(t, "a cheap scam", v["text"])
		assert.Empty(t, v["hits"])
	})
}

// The message pipeline reads guards through a.guards.For: a write through
// the API applies to the next check at once, on this replica and (by the
// change notification) on another one that had the old Guard cached.
func TestGuardsFollowWrites(t *testing.T) {
	one := newEnv(t)
	two := startEnv(t, one.cfg)
	one.waitReplicasListening(2)
	ctx := t.Context()
	check := func(e *env) string {
		g, err := e.app.guards.For(ctx, "acme")
		require.NoError(t, err)
		return g.CheckOutput("a cheap deal").Text
	}
	one.do(req{method: "GET", path: guardSetURL, tenant: "acme"}) // the tenant exists
	assert.Equal(t, "a cheap deal", check(one))
	assert.Equal(t, "a cheap deal", check(two), "replica two has the empty guard cached")

	w := one.guardWord("acme", map[string]any{"word": "cheap"})
	assert.Equal(t, "a ***** deal", check(one), "the writing replica uses the new guard at once")
	assert.Eventually(t, func() bool { return check(two) == "a ***** deal" }, 3*time.Second, 10*time.Millisecond,
		"the other replica drops its cached guard")

	r := one.do(req{method: "PUT", path: wordsURL + "/" + w["id"].(string), tenant: "acme",
		body: map[string]any{"word": "cheap", "matchMode": "exact", "action": "mask", "replacement": "affordable", "version": 1}})
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, "a affordable deal", check(one))

	require.Equal(t, http.StatusNoContent, one.do(req{method: "DELETE", path: wordsURL + "/" + w["id"].(string), tenant: "acme"}).Status)
	assert.Equal(t, "a cheap deal", check(one))
	assert.Eventually(t, func() bool { return check(two) == "a cheap deal" }, 3*time.Second, 10*time.Millisecond)

	g, err := one.app.guards.For(ctx, "globex")
	require.NoError(t, err)
	assert.Equal(t, "a cheap deal", g.CheckOutput("a cheap deal").Text)
}

func TestGuardrailMonitoring(t *testing.T) {
	e := newEnv(t)
	word := e.guardWord("acme", map[string]any{"word": "cheap"})["id"].(string)
	gone := e.guardWord("acme", map[string]any{"word": "scam", "action": "block"})["id"].(string)
	rule := e.guardRule("acme", map[string]any{"name": "No account numbers", "kind": "regex", "pattern": `\d{8,}`,
		"action": "replace", "text": "No."})["id"].(string)
	require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: wordsURL + "/" + gone, tenant: "acme"}).Status)
	e.do(req{method: "GET", path: guardSetURL, tenant: "globex"}) // the tenant exists

	now := time.Now().UTC()
	hit := func(tenant, msg string, stage domain.GuardStage, kind, ref, category, pattern, action string, ago time.Duration) domain.GuardHit {
		return domain.GuardHit{TenantID: domain.TenantID(tenant), SessionID: "s1", MessageID: msg, Stage: stage, Kind: kind,
			RefID: ref, Category: category, Pattern: pattern, Action: action, At: now.Add(-ago)}
	}
	require.NoError(t, e.app.store.RecordGuardHits(t.Context(), []domain.GuardHit{
		hit("acme", "m1", domain.GuardOutput, "word", word, "", "cheap", "mask", time.Hour),
		hit("acme", "m1", domain.GuardOutput, "word", word, "", "cheap", "mask", time.Hour),
		hit("acme", "m2", domain.GuardOutput, "word", word, "", "cheap", "mask", 2*time.Hour),
		hit("acme", "m3", domain.GuardOutput, "word", gone, "", "scam", "block", 3*time.Hour),
		hit("acme", "m3", domain.GuardOutput, "rule", rule, "", `\d{8,}`, "replace", 3*time.Hour),
		hit("acme", "m4", domain.GuardInput, "high_risk", "", "self_harm", "kill myself", "transfer", 4*time.Hour),
		hit("acme", "m5", domain.GuardInput, "high_risk", "", "self_harm", "suicide", "transfer", 5*time.Hour),
		hit("acme", "m6", domain.GuardOutput, "high_risk", "", "threat", "i will hurt you", "transfer", 6*time.Hour),
		hit("acme", "m0", domain.GuardOutput, "word", word, "", "cheap", "mask", 8*24*time.Hour), // outside 7 days
		hit("globex", "g1", domain.GuardOutput, "word", domain.NewID(domain.PrefixForbiddenWord), "", "cheap", "mask", time.Hour),
	}))

	r := e.do(req{method: "GET", path: guardMonURL, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	m := r.JSON(t)
	from, _ := time.Parse(time.RFC3339, m["from"].(string))
	to, _ := time.Parse(time.RFC3339, m["to"].(string))
	assert.InDelta(t, 7*24*time.Hour, to.Sub(from), float64(time.Second), "the last 7 days by default")

	stages := m["stages"].([]any)
	require.Len(t, stages, 2)
	in, out := stages[0].(map[string]any), stages[1].(map[string]any)
	assert.Equal(t, "input", in["stage"])
	assert.EqualValues(t, 2, in["hits"])
	assert.EqualValues(t, 2, in["messages"])
	assert.EqualValues(t, 2, in["transferredMessages"])
	assert.Equal(t, "output", out["stage"])
	assert.EqualValues(t, 6, out["hits"])
	assert.EqualValues(t, 4, out["messages"])
	assert.EqualValues(t, 1, out["blockedMessages"], "m3, blocked by a word and a rule, counts once")
	assert.EqualValues(t, 1, out["transferredMessages"])

	words := m["words"].([]any)
	require.Len(t, words, 2)
	top := words[0].(map[string]any)
	assert.Equal(t, word, top["wordId"])
	assert.Equal(t, "cheap", top["word"])
	assert.Equal(t, true, top["exists"])
	assert.EqualValues(t, 3, top["hits"])
	assert.EqualValues(t, 0, top["blocks"])
	deleted := words[1].(map[string]any)
	assert.Equal(t, gone, deleted["wordId"])
	assert.Equal(t, "scam", deleted["word"], "a deleted word keeps the text it hit with")
	assert.Equal(t, false, deleted["exists"])
	assert.EqualValues(t, 1, deleted["blocks"])

	rules := m["rules"].([]any)
	require.Len(t, rules, 1)
	rs := rules[0].(map[string]any)
	assert.Equal(t, rule, rs["ruleId"])
	assert.Equal(t, "No account numbers", rs["name"])
	assert.EqualValues(t, 1, rs["blocks"])

	hr := m["highRisk"].([]any)
	require.Len(t, hr, 2)
	self := hr[0].(map[string]any)
	assert.Equal(t, "self_harm", self["category"])
	assert.EqualValues(t, 2, self["hits"])
	assert.EqualValues(t, 2, self["inputHits"])
	assert.EqualValues(t, 0, self["outputHits"])
	assert.EqualValues(t, 2, self["transfers"])
	assert.Equal(t, "threat", hr[1].(map[string]any)["category"])
	assert.EqualValues(t, 1, hr[1].(map[string]any)["outputHits"])

	t.Run("a range narrows the counts", func(t *testing.T) {
		q := url.Values{"from": {now.Add(-150 * time.Minute).Format(time.RFC3339)}, "to": {now.Format(time.RFC3339)}}
		m := e.do(req{method: "GET", path: guardMonURL + "?" + q.Encode(), tenant: "acme"}).JSON(t)
		out := m["stages"].([]any)[1].(map[string]any)
		assert.EqualValues(t, 3, out["hits"])
		assert.Empty(t, m["rules"])
		assert.Empty(t, m["highRisk"])
	})
	t.Run("from after to is 400", func(t *testing.T) {
		q := url.Values{"from": {now.Format(time.RFC3339)}, "to": {now.Add(-time.Hour).Format(time.RFC3339)}}
		r := e.do(req{method: "GET", path: guardMonURL + "?" + q.Encode(), tenant: "acme"})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r), "query.from")
	})
	t.Run("another tenant sees only its own hits", func(t *testing.T) {
		m := e.do(req{method: "GET", path: guardMonURL, tenant: "globex"}).JSON(t)
		assert.EqualValues(t, 1, m["stages"].([]any)[1].(map[string]any)["hits"])
		assert.EqualValues(t, 0, m["stages"].([]any)[0].(map[string]any)["hits"])
		w := m["words"].([]any)[0].(map[string]any)
		assert.Equal(t, false, w["exists"], "acme's word is not globex's")
	})
}
