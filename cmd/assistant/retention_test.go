package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// putRetention replaces the tenant's settings with retention changed (nil
// leaves retention out of the request) and returns the answer.
func putRetention(t *testing.T, e *env, tenant string, retention map[string]any) response {
	t.Helper()
	cur := e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: tenant}).JSON(t)
	body := map[string]any{}
	for _, k := range []string{"transferConfidenceThreshold", "minHits", "minTopScore", "minEvidenceTokens", "retrievalScoreThreshold",
		"kb_vector_log_enabled", "kb_vector_log_path", "version"} {
		body[k] = cur[k]
	}
	body["frontend_base_url"] = nil
	if retention != nil {
		body["retention"] = retention
	}
	return e.do(req{method: "PUT", path: "/api/v1/admin/settings", tenant: tenant, body: body})
}

func TestRetentionSettings(t *testing.T) {
	e := newEnv(t)
	t.Run("a new tenant keeps monitoring 90 days and messages for good", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, map[string]any{"monitoringDays": 90.0, "messageDays": nil}, r.JSON(t)["retention"])
	})
	t.Run("an update sets both", func(t *testing.T) {
		r := putRetention(t, e, "acme", map[string]any{"monitoringDays": 30, "messageDays": 365})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, map[string]any{"monitoringDays": 30.0, "messageDays": 365.0}, r.JSON(t)["retention"])
	})
	t.Run("an update without retention keeps it", func(t *testing.T) {
		r := putRetention(t, e, "acme", nil)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, map[string]any{"monitoringDays": 30.0, "messageDays": 365.0}, r.JSON(t)["retention"])
	})
	t.Run("null messageDays keeps messages again", func(t *testing.T) {
		r := putRetention(t, e, "acme", map[string]any{"monitoringDays": 30, "messageDays": nil})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, map[string]any{"monitoringDays": 30.0, "messageDays": nil}, r.JSON(t)["retention"])
	})
	for name, bad := range map[string]map[string]any{
		"zero days":            {"monitoringDays": 0, "messageDays": nil},
		"over ten years":       {"monitoringDays": 90, "messageDays": 4000},
		"a missing field":      {"monitoringDays": 90},
		"an unknown field":     {"monitoringDays": 90, "messageDays": nil, "forever": true},
		"a fractional day":     {"monitoringDays": 1.5, "messageDays": nil},
		"days given as string": {"monitoringDays": "90", "messageDays": nil},
	} {
		t.Run(name+" is refused", func(t *testing.T) {
			r := putRetention(t, e, "acme", bad)
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			assert.Equal(t, "validation_failed", r.Code(t))
		})
	}
	t.Run("the dashboard's floor follows the setting", func(t *testing.T) {
		now := time.Date(2030, 1, 31, 12, 0, 0, 0, time.UTC)
		floor, err := e.app.store.RetentionFloor(t.Context(), "acme", now)
		require.NoError(t, err)
		assert.Equal(t, now.AddDate(0, 0, -30), floor)
	})
}

// monitoringCounts reads, through the API, what a tenant's monitoring
// shows of its records and how many messages its session keeps (-1 when
// the session is gone).
func monitoringCounts(t *testing.T, e *env, tenant, rule, session string) map[string]int {
	t.Helper()
	get := func(path string) map[string]any {
		r := e.do(req{method: "GET", path: "/api/v1" + path, tenant: tenant})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)
	}
	sum := func(items any, field string) int {
		n := 0
		for _, it := range items.([]any) {
			n += int(it.(map[string]any)[field].(float64))
		}
		return n
	}
	out := map[string]int{
		"intentHits": len(get("/admin/monitoring/intent-rules/" + rule + "/hits")["items"].([]any)),
		"guardHits":  sum(get("/admin/monitoring/guardrails")["stages"], "hits"),
		"flowStarts": sum(get("/admin/monitoring/flows")["items"], "starts"),
		"renders":    sum(get("/admin/monitoring/prompt-templates")["scenes"], "renders"),
		"retrievals": sum(get("/strategy/retrieval/metrics")["items"], "queries"),
		"messages":   -1,
	}
	r := e.do(req{method: "GET", path: "/api/v1/chat/sessions/" + session + "/messages", tenant: tenant})
	if r.Status == http.StatusOK {
		out["messages"] = len(r.JSON(t)["items"].([]any))
	} else {
		require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
	}
	return out
}

func TestRetentionPurgesExpiredRecordsInBatches(t *testing.T) {
	e, ids := dialogueEnv(t)
	// acme: every kind of monitoring record, through the dialogue.
	acme := e.newChat("acme", nil)
	for _, m := range []string{"How long do refunds take to reach my payment method?", "Does every router carry a warranty for hardware faults?", "Hello there"} {
		acme.send(t, m)
	}
	// The order flow runs in a session of its own: its timeout adds a
	// message whenever the sweeper fires it.
	e.newChat("acme", nil).send(t, "Where is my order?")
	// globex: a rule hit and messages, on the default retention.
	greeting := e.create(t, "globex", "/admin/intent-rules", map[string]any{"name": "Greeting", "keywords": []string{"hello"},
		"responseType": "fixed", "fixedText": "Hi!", "priority": 1})
	globex := e.newChat("globex", nil)
	globex.send(t, "hello")
	globex.send(t, "hello again")

	fresh := monitoringCounts(t, e, "acme", ids["greeting"], acme.session)
	for k, n := range fresh {
		require.Positive(t, n, "%s: the dialogue left records to purge", k)
	}
	globexFresh := monitoringCounts(t, e, "globex", greeting, globex.session)
	require.Equal(t, 2, globexFresh["intentHits"])
	r := putRetention(t, e, "acme", map[string]any{"monitoringDays": 1, "messageDays": 2})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	now := time.Now()

	t.Run("nothing younger than the retention goes", func(t *testing.T) {
		res, err := e.app.retention.Purge(t.Context(), now)
		require.NoError(t, err)
		assert.True(t, res.Ran)
		assert.Zero(t, res.Monitoring+res.Messages+res.Sessions)
		assert.Equal(t, fresh, monitoringCounts(t, e, "acme", ids["greeting"], acme.session))
	})
	t.Run("past a day, acme's monitoring goes and its messages stay", func(t *testing.T) {
		res, err := e.app.retention.Purge(t.Context(), now.Add(36*time.Hour))
		require.NoError(t, err)
		assert.Positive(t, res.Monitoring)
		assert.Zero(t, res.Messages)
		got := monitoringCounts(t, e, "acme", ids["greeting"], acme.session)
		assert.Equal(t, map[string]int{"intentHits": 0, "guardHits": 0, "flowStarts": 0, "renders": 0, "retrievals": 0,
			"messages": fresh["messages"]}, got)
		assert.Equal(t, globexFresh, monitoringCounts(t, e, "globex", greeting, globex.session), "globex keeps 90 days")
	})
	t.Run("past two days, acme's messages and session go, one row per batch", func(t *testing.T) {
		res, err := e.app.store.PurgeExpired(t.Context(), now.Add(72*time.Hour), 1)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, res.Messages, int64(fresh["messages"]+2), "every message of both sessions, one batch of one at a time")
		assert.EqualValues(t, 2, res.Sessions)
		assert.Equal(t, -1, monitoringCounts(t, e, "acme", ids["greeting"], acme.session)["messages"])
		r := e.do(req{method: "GET", path: "/api/v1/chat/sessions/" + acme.session, tenant: "acme"})
		assert.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
		assert.Equal(t, globexFresh, monitoringCounts(t, e, "globex", greeting, globex.session), "globex keeps its messages")
	})
	t.Run("past 90 days, globex's monitoring goes and its messages stay", func(t *testing.T) {
		res, err := e.app.retention.Purge(t.Context(), now.Add(91*24*time.Hour))
		require.NoError(t, err)
		assert.Positive(t, res.Monitoring)
		assert.Zero(t, res.Messages)
		got := monitoringCounts(t, e, "globex", greeting, globex.session)
		assert.Zero(t, got["intentHits"])
		assert.Equal(t, globexFresh["messages"], got["messages"])
		reply := globex.send(t, "hello")
		assert.Equal(t, "Hi!", reply["answer"], "the kept session goes on")
	})
	t.Run("one replica purges at a time", func(t *testing.T) {
		conn, err := e.db.Acquire(context.Background())
		require.NoError(t, err)
		defer conn.Release()
		var held bool
		require.NoError(t, conn.QueryRow(t.Context(), "SELECT pg_try_advisory_lock(hashtextextended('retention_purge', 0))").Scan(&held))
		require.True(t, held)
		res, err := e.app.retention.Purge(t.Context(), now.Add(1000*24*time.Hour))
		require.NoError(t, err)
		assert.False(t, res.Ran, "another holder of the lock is purging")
		_, err = conn.Exec(t.Context(), "SELECT pg_advisory_unlock(hashtextextended('retention_purge', 0))")
		require.NoError(t, err)
		res, err = e.app.retention.Purge(t.Context(), now.Add(1000*24*time.Hour))
		require.NoError(t, err)
		assert.True(t, res.Ran)
	})
}
