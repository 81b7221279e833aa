package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// BenchmarkDashboardStats1M measures GET /admin/dashboard/stats (the
// default range: 7 days, day buckets) over 1M stored messages spread over
// those 7 days, every one of them in range: the worst case of the default
// read. It runs as the service does, with the records older than 10
// minutes rolled up (the periodic job keeps adding the newest minute) and
// the rest read live; the whole chain runs, database round trips
// included, no network. Once, before the roll-up, it times one read with
// every message read live: the baseline the roll-ups exist for. Seeding
// (COPY) and rolling up take a minute, so it runs only with BENCH_1M=1:
//
//	BENCH_1M=1 go test -run '^$' -bench DashboardStats1M -benchtime 50x ./cmd/assistant
func BenchmarkDashboardStats1M(b *testing.B) {
	if os.Getenv("BENCH_1M") == "" {
		b.Skip("set BENCH_1M=1 to seed 1M messages and measure the dashboard over them")
	}
	e := newBenchEnv(b)
	const tenant = "big"
	var rules []string
	for i := range 20 {
		r := e.do(req{method: "POST", path: "/api/v1/admin/intent-rules", tenant: tenant, body: map[string]any{
			"name": fmt.Sprintf("Rule %d", i), "keywords": []string{fmt.Sprintf("topic%d", i)}, "responseType": "fixed", "fixedText": "Hi."}})
		if r.Status != http.StatusCreated {
			b.Fatalf("rule: %d %s", r.Status, r.Body)
		}
		rules = append(rules, r.JSON(b)["id"].(string))
	}
	start := time.Now()
	seeded := seedConversations(b, e.db, seedSpec{tenant: tenant, messages: 1_000_000, perSession: 10,
		end: time.Now(), span: 7 * 24 * time.Hour, rules: rules, questions: 5000})
	if _, err := e.db.Exec(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d messages, %d sessions, %d intent hits, %d guard hits in %s",
		seeded.messages, seeded.sessions, seeded.intentHits, seeded.guardHits, time.Since(start).Round(time.Millisecond))

	h := e.app.server.Handler()
	var getPath func(b *testing.B, path string)
	get := func(b *testing.B) { getPath(b, "/api/v1/admin/dashboard/stats") }
	getPath = func(b *testing.B, path string) {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("X-API-Key", e.root)
		r.Header.Set("X-Tenant-Id", tenant)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	// The roll-up job of the app may have marked the tenant while it had no
	// records yet (or half of them): seeded records are older than the
	// mark, which live traffic never is. Start the tenant's roll-ups over.
	for _, table := range []string{"dashboard_rollup_marks", "dashboard_rollups"} {
		if _, err := e.db.Exec(context.Background(), "DELETE FROM "+table+" WHERE tenant_id = $1", tenant); err != nil {
			b.Fatal(err)
		}
	}
	start = time.Now()
	get(b)
	b.Logf("one read with every message read live: %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	facts, err := e.app.dashboard.RollUp(context.Background(), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.db.Exec(context.Background(), "ANALYZE dashboard_rollups"); err != nil {
		b.Fatal(err)
	}
	b.Logf("rolled up %d hourly facts in %s", facts, time.Since(start).Round(time.Millisecond))
	st := e.do(req{method: "GET", path: "/api/v1/admin/dashboard/stats", tenant: tenant}).JSON(b)
	b.Logf("checked against the contract: %v customer messages, %v replies, rolled up to %v",
		st["customerMessages"], st["replies"].(map[string]any)["total"], st["rolledUpTo"])
	b.Run("rolled-up", func(b *testing.B) {
		for b.Loop() {
			get(b)
		}
	})
	// The conversation search over the same 1M messages (no time bound,
	// so every message of the tenant is a candidate): a page of all
	// sessions, and a page of the rare high-risk ones found by text.
	for name, query := range map[string]string{"search": "?limit=50", "search-filtered": "?limit=50&transferReason=high_risk%3Aself_harm&text=kill"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				getPath(b, "/api/v1/admin/conversations"+query)
			}
		})
	}
}
