package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const conversationsPath = "/api/v1/admin/conversations"

// TestConversationsOfAScriptedDay: a reply found by its trace id with
// everything that decided it, the search's filters, and the export of what
// the search finds, on the scripted day.
func TestConversationsOfAScriptedDay(t *testing.T) {
	d := newScriptedDay(t)
	e := d.e
	s1, s2, s3 := d.session(0), d.session(1), d.session(2)

	t.Run("a reply is found by its trace id with its whole trace", func(t *testing.T) {
		turn := d.turns[6] // the warranty question: rag, masked, templated
		traceID := turn.reply["traceId"].(string)
		r := e.do(req{method: "GET", path: conversationsPath + "/traces/" + traceID, tenant: d.tenant})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		tr := r.JSON(t)
		assert.Equal(t, traceID, tr["traceId"])
		assert.Equal(t, s2, tr["session"].(map[string]any)["id"])
		assert.Equal(t, turn.message, tr["question"].(map[string]any)["content"])
		reply := tr["reply"].(map[string]any)
		assert.Equal(t, turn.reply["messageId"], reply["id"])
		assert.Equal(t, turn.reply["answer"], reply["content"])
		assert.Equal(t, turn.reply["sources"], reply["sources"], "the sources as the customer got them")

		mon := tr["monitoring"].(map[string]any)
		var stages []string
		total := 0.0
		for _, s := range mon["stages"].([]any) {
			stages = append(stages, s.(map[string]any)["stage"].(string))
			total += s.(map[string]any)["durationMs"].(float64)
		}
		assert.Equal(t, []string{"auth", "session", "handoff", "input_guard", "flow", "intent", "retrieval", "prompt", "generation", "output_guard", "persist"}, stages)
		assert.InDelta(t, total, tr["latencyMs"], 1e-6)
		require.NotEmpty(t, mon["guardHits"])
		hit := mon["guardHits"].([]any)[0].(map[string]any)
		assert.Equal(t, "warranty", hit["pattern"])
		assert.Equal(t, "mask", hit["action"])
		assert.Equal(t, d.ids["template"], mon["templateId"])

		require.Len(t, tr["templateVersions"], 1)
		tv := tr["templateVersions"].([]any)[0].(map[string]any)
		assert.Equal(t, d.ids["template"], tv["templateId"])
		assert.EqualValues(t, 1, tv["version"])
		assert.Contains(t, tv["content"].(map[string]any)["system_instruction"], "{{evidence}}")

		// The tool calls are the session's calls made for this message.
		calls := e.do(req{method: "GET", path: "/api/v1/chat/sessions/" + s2 + "/tool-traces?limit=200", tenant: d.tenant}).JSON(t)
		var want []any
		for _, c := range calls["items"].([]any) {
			if c.(map[string]any)["messageId"] == turn.reply["messageId"] {
				want = append([]any{c}, want...) // listed newest first; the trace, in the order made
			}
		}
		require.NotEmpty(t, want, "retrieval is a tool call (kb_search)")
		assert.Equal(t, want, tr["toolTraces"])
	})
	t.Run("a rule's reply has no template and names its rule", func(t *testing.T) {
		tr := e.do(req{method: "GET", path: conversationsPath + "/traces/" + d.turns[0].reply["traceId"].(string), tenant: d.tenant}).JSON(t)
		assert.Equal(t, d.ids["greeting"], tr["monitoring"].(map[string]any)["ruleId"])
		assert.Empty(t, tr["templateVersions"])
		assert.Equal(t, "Hello there", tr["question"].(map[string]any)["content"])
	})
	t.Run("an unknown trace id, or another tenant's, is 404", func(t *testing.T) {
		r := e.do(req{method: "GET", path: conversationsPath + "/traces/trc_" + strings.Repeat("ab", 16), tenant: d.tenant})
		assert.Equal(t, http.StatusNotFound, r.Status)
		assert.Equal(t, "not_found", r.Code(t))
		r = e.do(req{method: "GET", path: conversationsPath + "/traces/" + d.turns[0].reply["traceId"].(string), tenant: "globex"})
		assert.Equal(t, http.StatusNotFound, r.Status)
		r = e.do(req{method: "GET", path: conversationsPath + "/traces/not-a-trace", tenant: d.tenant})
		assert.Equal(t, http.StatusBadRequest, r.Status)
	})

	search := func(t *testing.T, query string) []map[string]any {
		t.Helper()
		r := e.do(req{method: "GET", path: conversationsPath + query, tenant: d.tenant})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var out []map[string]any
		for _, it := range r.JSON(t)["items"].([]any) {
			out = append(out, it.(map[string]any))
		}
		return out
	}
	sessionsOf := func(items []map[string]any) []string {
		out := []string{}
		for _, it := range items {
			out = append(out, it["session"].(map[string]any)["id"].(string))
		}
		return out
	}
	// byConfidence is the sessions, newest first, with a reply whose
	// confidence is within [lo, hi]: the expectation of a confidence
	// filter, from the replies the customers got.
	byConfidence := func(lo, hi float64) []string {
		out := []string{}
		for i := 2; i >= 0; i-- {
			for _, tn := range d.turns {
				if c, ok := tn.reply["confidence"].(float64); ok && tn.session == i && c >= lo && c <= hi {
					out = append(out, d.session(i))
					break
				}
			}
		}
		return out
	}
	filters := []struct {
		name, query string
		want        []string
	}{
		{"no filter: every session, newest first", "", []string{s3, s2, s1}},
		{"handed off", "?transferred=true", []string{s3, s1}},
		{"never handed off", "?transferred=false", []string{s2}},
		{"by transfer reason", "?transferReason=high_risk%3Aself_harm", []string{s3}},
		{"by intent rule", "?ruleId=" + d.ids["greeting"], []string{s2, s1}},
		{"by flow", "?flowId=" + d.ids["flow"], []string{s2}},
		{"by channel", "?channel=app", []string{s3}},
		{"by text, case folded", "?text=CRYPTOCURRENCY", []string{s3, s1}},
		{"by text in a reply", "?text=ships+within", []string{s2}},
		{"by confidence", "?minConfidence=0.99", byConfidence(0.99, 1)},
		{"by a confidence interval", "?minConfidence=0.05&maxConfidence=0.6", byConfidence(0.05, 0.6)},
		{"in a range without messages", "?from=" + url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339)), []string{}},
		{"filters combine", "?transferred=true&channel=web", []string{s1}},
	}
	t.Run("the search's filters", func(t *testing.T) {
		for _, f := range filters {
			t.Run(f.name, func(t *testing.T) {
				assert.Equal(t, f.want, sessionsOf(search(t, f.query)))
			})
		}
	})
	t.Run("each session comes with the counts of its messages", func(t *testing.T) {
		items := search(t, "")
		require.Len(t, items, 3)
		counts := func(it map[string]any) []float64 {
			return []float64{it["messages"].(float64), it["customerMessages"].(float64), it["replies"].(float64), it["handoffs"].(float64)}
		}
		assert.Equal(t, []float64{6, 3, 3, 3}, counts(items[0]))
		assert.Equal(t, []float64{8, 4, 4, 0}, counts(items[1]))
		assert.Equal(t, []float64{6, 3, 3, 1}, counts(items[2]))
		assert.Equal(t, "app", items[0]["session"].(map[string]any)["channel"])
	})
	t.Run("pages follow the cursor", func(t *testing.T) {
		var seen []string
		query := "?limit=1"
		for range 5 {
			r := e.do(req{method: "GET", path: conversationsPath + query, tenant: d.tenant}).JSON(t)
			for _, it := range r["items"].([]any) {
				seen = append(seen, it.(map[string]any)["session"].(map[string]any)["id"].(string))
			}
			next, ok := r["nextCursor"].(string)
			if !ok {
				break
			}
			query = "?limit=1&cursor=" + next
		}
		assert.Equal(t, []string{s3, s2, s1}, seen)
	})
	t.Run("bad filters are 400", func(t *testing.T) {
		for _, q := range []string{"?minConfidence=0.8&maxConfidence=0.2", "?minConfidence=2", "?ruleId=nope",
			"?from=2026-11-22T00:00:00Z&to=2026-11-21T00:00:00Z"} {
			r := e.do(req{method: "GET", path: conversationsPath + q, tenant: d.tenant})
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", q, r.Body)
			r = e.do(req{method: "GET", path: conversationsPath + "/export" + q, tenant: d.tenant})
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", q, r.Body)
		}
	})

	export := func(t *testing.T, query string) response {
		t.Helper()
		r := e.do(req{method: "GET", path: conversationsPath + "/export" + query, tenant: d.tenant})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r
	}
	t.Run("a JSON Lines export has one row per message, sessions newest first", func(t *testing.T) {
		r := export(t, "")
		assert.Equal(t, "application/x-ndjson", r.Header.Get("Content-Type"))
		assert.Regexp(t, `^attachment; filename="conversations-acme-\d{8}T\d{6}Z\.jsonl"$`, r.Header.Get("Content-Disposition"))
		var rows []map[string]any
		for _, line := range bytes.Split(bytes.TrimSuffix(r.Body, []byte("\n")), []byte("\n")) {
			var row map[string]any
			require.NoError(t, json.Unmarshal(line, &row))
			rows = append(rows, row)
		}
		require.Len(t, rows, 20)
		var sessions []string
		for _, row := range rows {
			if len(sessions) == 0 || sessions[len(sessions)-1] != row["sessionId"] {
				sessions = append(sessions, row["sessionId"].(string))
			}
		}
		assert.Equal(t, []string{s3, s2, s1}, sessions)
		// S2's rows in order: its four messages and their replies.
		var s2Rows []map[string]any
		for _, row := range rows {
			if row["sessionId"] == s2 {
				s2Rows = append(s2Rows, row)
			}
		}
		require.Len(t, s2Rows, 8)
		for i, tn := range d.turns[3:7] {
			q, a := s2Rows[2*i], s2Rows[2*i+1]
			assert.Equal(t, "user", q["role"])
			assert.Equal(t, tn.message, q["text"])
			assert.Nil(t, q["answer"])
			assert.Nil(t, q["latencyMs"])
			assert.Equal(t, "assistant", a["role"])
			assert.Equal(t, tn.reply["answer"], a["answer"])
			assert.Nil(t, a["text"])
			assert.Equal(t, tn.reply["messageId"], a["messageId"])
			assert.Equal(t, tn.reply["traceId"], a["traceId"])
			assert.Equal(t, tn.reply["responseType"], a["responseType"])
			assert.Equal(t, tn.reply["confidence"], a["confidence"])
			assert.Positive(t, a["latencyMs"])
			assert.Equal(t, "web", a["channel"])
			created, err := time.Parse(time.RFC3339Nano, a["createdAt"].(string))
			require.NoError(t, err)
			assert.Equal(t, time.UTC, created.Location())
		}
		assert.Equal(t, d.ids["greeting"], s2Rows[1]["ruleId"])
		assert.Equal(t, d.ids["flow"], s2Rows[3]["flowId"])
		assert.EqualValues(t, 1, s2Rows[3]["flowStep"])
		assert.Equal(t, d.ids["template"], s2Rows[7]["templateId"])
		assert.EqualValues(t, 1, s2Rows[7]["templateVersion"])
		assert.NotEmpty(t, s2Rows[7]["sources"])
	})
	t.Run("a CSV export has a header and the same rows", func(t *testing.T) {
		r := export(t, "?format=csv&transferred=true")
		assert.Equal(t, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
		assert.True(t, strings.HasSuffix(r.Header.Get("Content-Disposition"), `.csv"`))
		records, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		require.NoError(t, err)
		require.Len(t, records, 1+12, "S3 and S1: six messages each")
		header := records[0]
		assert.Equal(t, []string{"session_id", "channel", "message_id", "created_at", "role", "text", "answer", "thought",
			"response_type", "confidence", "should_transfer", "transfer_reason", "transfer_code", "rule_id", "flow_id",
			"flow_step", "template_id", "template_version", "sources", "latency_ms", "trace_id", "status"}, header)
		col := func(rec []string, name string) string { return rec[slices.Index(header, name)] }
		highRisk := records[4] // S3: question, reply, question, reply (the high-risk one)
		assert.Equal(t, "high_risk:self_harm", col(highRisk, "transfer_reason"))
		assert.Equal(t, "high_risk", col(highRisk, "transfer_code"))
		assert.Equal(t, "true", col(highRisk, "should_transfer"))
		assert.Equal(t, "", col(highRisk, "confidence"), "null is an empty cell")
		assert.Equal(t, "I want to kill myself", col(records[3], "text"))
		assert.Equal(t, "[]", col(records[3], "sources"))
	})
	t.Run("the export finds the sessions the search finds", func(t *testing.T) {
		for _, f := range filters {
			t.Run(f.name, func(t *testing.T) {
				r := export(t, f.query)
				got := []string{}
				for _, line := range bytes.Split(bytes.TrimSpace(r.Body), []byte("\n")) {
					if len(line) == 0 {
						continue
					}
					var row struct{ SessionID string }
					require.NoError(t, json.Unmarshal(line, &row))
					if len(got) == 0 || got[len(got)-1] != row.SessionID {
						got = append(got, row.SessionID)
					}
				}
				assert.Equal(t, f.want, got)
			})
		}
	})
}
