package main

import (
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const dashboardPath = "/api/v1/admin/dashboard/stats"

// nearestRank is the p-th percentile of values by the nearest-rank method:
// the value of rank ⌈p·n⌉ in ascending order.
func nearestRank(values []float64, p float64) float64 {
	v := slices.Clone(values)
	slices.Sort(v)
	return v[max(int(math.Ceil(p*float64(len(v)))), 1)-1]
}

func mean(values []float64) float64 {
	s := 0.0
	for _, v := range values {
		s += v
	}
	return s / float64(len(values))
}

// TestDashboardCountsAScriptedDay is the "done when": the dashboard
// shows the numbers of a scripted day of conversations, counted by hand
// from the script (and, for what the service measures, from the replies'
// own monitoring as the admin session view shows it), read live and again
// after the hours were rolled up.
func TestDashboardCountsAScriptedDay(t *testing.T) {
	d := newScriptedDay(t)
	e := d.e
	stats := func(t *testing.T, query string) map[string]any {
		t.Helper()
		r := e.do(req{method: "GET", path: dashboardPath + query, tenant: d.tenant})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)
	}

	// What the service measured, read through the API.
	replies := d.monitoring(t)
	require.Len(t, replies, 10)
	var confidences, latencies []float64
	type usage struct{ replies, in, out float64 }
	tokens := map[string]usage{}
	for _, m := range replies {
		if c, ok := m["confidence"].(float64); ok {
			confidences = append(confidences, c)
		}
		mon := m["monitoring"].(map[string]any)
		total := 0.0
		for _, s := range mon["stages"].([]any) {
			total += s.(map[string]any)["durationMs"].(float64)
		}
		latencies = append(latencies, total)
		if model, ok := mon["model"].(string); ok {
			u := tokens[model]
			tokens[model] = usage{u.replies + 1, u.in + mon["tokensIn"].(float64), u.out + mon["tokensOut"].(float64)}
		}
	}
	require.NotEmpty(t, confidences)
	require.Equal(t, 2, strings.Count(d.turns[6].reply["answer"].(string), "********"), "both warranties of the quote are masked")
	retrievalReason := d.turns[2].reply["transferReason"].(string)
	require.Equal(t, retrievalReason, d.turns[7].reply["transferReason"], "both uncovered questions hand off alike")

	check := func(t *testing.T, st map[string]any) {
		t.Helper()
		assert.EqualValues(t, 3, st["sessions"])
		assert.EqualValues(t, 10, st["customerMessages"])
		assert.Equal(t, map[string]any{"total": 10.0, "fixed": 2.0, "rag": 2.0, "flow": 2.0, "transfer": 4.0}, st["replies"])

		handoffs := st["handoffs"].(map[string]any)
		assert.EqualValues(t, 4, handoffs["count"])
		assert.InDelta(t, 0.4, handoffs["rate"], 1e-9)
		assert.Equal(t, []any{
			map[string]any{"transferReason": retrievalReason, "transferCode": retrievalReason, "count": 2.0},
			map[string]any{"transferReason": "high_risk:self_harm", "transferCode": "high_risk", "count": 1.0},
			map[string]any{"transferReason": "wants_agent", "transferCode": "operator_reason", "count": 1.0},
		}, handoffs["byReason"])

		conf := st["confidence"].(map[string]any)
		assert.EqualValues(t, len(confidences), conf["replies"])
		assert.InDelta(t, mean(confidences), conf["mean"], 1e-4)
		assert.InDelta(t, nearestRank(confidences, 0.5), conf["p50"], 0.01)
		assert.InDelta(t, nearestRank(confidences, 0.95), conf["p95"], 0.01)

		lat := st["latency"].(map[string]any)
		assert.EqualValues(t, 10, lat["replies"])
		assert.InDelta(t, mean(latencies), lat["meanMs"], 1e-3)
		assert.InEpsilon(t, nearestRank(latencies, 0.5), lat["p50Ms"], 0.05)
		assert.InEpsilon(t, nearestRank(latencies, 0.95), lat["p95Ms"], 0.05)

		var gotTokens []any
		for model, u := range tokens {
			gotTokens = append(gotTokens, map[string]any{"model": model, "replies": u.replies, "tokensIn": u.in, "tokensOut": u.out})
		}
		assert.ElementsMatch(t, gotTokens, st["tokens"])

		// The greeting decided two messages; the order and agent rules one
		// each (equal counts in rule id order). A message to a running flow
		// and a high-risk one never reach the rules.
		ones := []string{d.ids["order"], d.ids["agent"]}
		slices.Sort(ones)
		names := map[string]string{d.ids["order"]: "Order status", d.ids["agent"]: "Agent"}
		assert.Equal(t, []any{
			map[string]any{"ruleId": d.ids["greeting"], "name": "Greeting", "hits": 2.0},
			map[string]any{"ruleId": ones[0], "name": names[ones[0]], "hits": 1.0},
			map[string]any{"ruleId": ones[1], "name": names[ones[1]], "hits": 1.0},
		}, st["topIntentRules"])
		assert.Equal(t, []any{
			map[string]any{"text": "can i pay with cryptocurrency at the opera", "count": 2.0},
			map[string]any{"text": "i want to kill myself", "count": 1.0},
			map[string]any{"text": "i want to talk to a human", "count": 1.0},
		}, st["topUnanswered"])
		// The warranty answer quotes "Warranty: every router carries a
		// two-year warranty", masked twice (output); the high-risk message
		// is handed over (input).
		assert.Equal(t, map[string]any{"hits": 3.0, "blocks": 0.0, "transfers": 1.0, "inputHits": 1.0, "outputHits": 2.0}, st["guardrails"])

		docs := st["documents"].(map[string]any)
		assert.EqualValues(t, 1, docs["total"])
		assert.Contains(t, docs["byStatus"], map[string]any{"status": "ready", "count": 1.0})
		assert.Len(t, docs["byStatus"], 5)
		jobs := st["indexJobs"].(map[string]any)
		assert.EqualValues(t, 1, jobs["total"])
		assert.Contains(t, jobs["byState"], map[string]any{"state": "succeeded", "count": 1.0})
		assert.Len(t, jobs["byState"], 7)

		var msgs, reps, hands float64
		withLatency := 0
		for _, b := range st["series"].([]any) {
			bk := b.(map[string]any)
			msgs += bk["customerMessages"].(float64)
			reps += bk["replies"].(float64)
			hands += bk["handoffs"].(float64)
			if bk["latencyMeanMs"] != nil {
				withLatency++
				assert.NotNil(t, bk["latencyP95Ms"])
			}
		}
		assert.Equal(t, []float64{10, 10, 4}, []float64{msgs, reps, hands}, "the series adds up to the totals")
		assert.Positive(t, withLatency)
	}

	var live map[string]any
	t.Run("the default range (7 days, days) counts the day live", func(t *testing.T) {
		live = stats(t, "")
		check(t, live)
		from, _ := time.Parse(time.RFC3339, live["from"].(string))
		to, _ := time.Parse(time.RFC3339, live["to"].(string))
		assert.Equal(t, 7*24*time.Hour+time.Hour, to.Sub(from), "7 days widened to whole hours")
		assert.Equal(t, "day", live["granularity"])
		assert.Len(t, live["series"], 8, "a bucket per UTC day the range touches")
	})
	t.Run("hour buckets count the same", func(t *testing.T) {
		st := stats(t, "?granularity=hour&from="+time.Now().UTC().Add(-3*time.Hour).Format(time.RFC3339))
		check(t, st)
		assert.Len(t, st["series"], 4)
	})
	t.Run("rolled-up hours count exactly as the live ones did", func(t *testing.T) {
		n, err := e.app.dashboard.RollUp(t.Context(), time.Now().Add(2*time.Hour))
		require.NoError(t, err)
		require.Positive(t, n)
		rolled := stats(t, "")
		require.NotNil(t, rolled["rolledUpTo"])
		rolledUpTo, _ := time.Parse(time.RFC3339, rolled["rolledUpTo"].(string))
		assert.False(t, rolledUpTo.Before(time.Now()), "the day is rolled up")
		check(t, rolled)
		for _, k := range []string{"replies", "handoffs", "topIntentRules", "topUnanswered", "guardrails", "tokens"} {
			assert.Equal(t, live[k], rolled[k], k)
		}
		assert.Len(t, rolled["series"], len(live["series"].([]any)))
		again, err := e.app.dashboard.RollUp(t.Context(), time.Now().Add(2*time.Hour))
		require.NoError(t, err)
		assert.Zero(t, again, "a second roll-up finds the hours done")
	})
	t.Run("another tenant counts nothing of it", func(t *testing.T) {
		r := e.do(req{method: "GET", path: dashboardPath, tenant: "globex"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		st := r.JSON(t)
		assert.EqualValues(t, 0, st["customerMessages"])
		assert.Equal(t, map[string]any{"total": 0.0, "fixed": 0.0, "rag": 0.0, "flow": 0.0, "transfer": 0.0}, st["replies"])
		assert.Nil(t, st["confidence"].(map[string]any)["p50"])
		assert.Empty(t, st["topUnanswered"])
	})
	t.Run("a bad range is 400 naming the parameter", func(t *testing.T) {
		now := time.Now().UTC()
		for _, c := range []struct{ name, query, field string }{
			{"from after to", "?from=" + now.Format(time.RFC3339) + "&to=" + now.Add(-time.Hour).Format(time.RFC3339), "query.from"},
			{"over 366 days", "?from=" + now.AddDate(-2, 0, 0).Format(time.RFC3339), "query.from"},
			{"hours over 31 days", "?granularity=hour&from=" + now.AddDate(0, 0, -40).Format(time.RFC3339), "query.from"},
			{"an unknown granularity", "?granularity=week", "query.granularity"},
			{"a to too early for the default from", "?to=0000-01-03T00:00:00Z", "query.to"},
			{"an end the hours cannot widen", "?from=9999-12-31T00:00:00Z&to=9999-12-31T23:30:00Z", "query.to"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := e.do(req{method: "GET", path: dashboardPath + strings.ReplaceAll(c.query, "+", "%2B"), tenant: d.tenant})
				require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
				assert.Equal(t, "validation_failed", r.Code(t))
				assert.Contains(t, fieldErrors(t, r), c.field)
			})
		}
	})
}
