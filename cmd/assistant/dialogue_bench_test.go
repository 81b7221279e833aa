package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/cputime"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/internal/testfiles"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/providers/embed/offline"
	"github.com/cs-assistant/assistant/store/pg"
)

// The dialogue benchmarks of issue 5: the message pipeline of a tenant the
// size the issue names, through the real HTTP stack, with a fake
// OpenAI-compatible model that answers at once, so what is measured is the
// service's own work (and the fake model's and the client's, which share
// the machine):
//
//	go test -run '^$' -bench 'BenchmarkDialogue' -benchtime 2000x ./cmd/assistant
//
// (with BENCH_CPUPROFILE=/tmp/dlg, the profile of each timed loop is
// written to /tmp/dlg.serial and /tmp/dlg.workers-8)
//
// Targets: the overhead of all stages p50 ≤ 5 ms and ≥ 500 messages/s on
// 2 cores; the first SSE delta within 10 ms of the model's first token.
// PostgreSQL, the client and the fake model run on the same machine, so
// on 2 cores msgs/s is a lower bound of what the service alone manages.
// Setting up the tenant takes about 40 s (seeding, then the service's
// start, which loads the vectors and the lexical index).
// The guard's own budget (≤ 1 ms per answer against 5,000 words) is
// pipelines/dialogue/guard's BenchmarkCheckOutput5kWords.
const (
	dlgTenant = "acme"
	// dlgChunks chunks of dlgChunkWords words of customer-service prose,
	// dlgChunksPerDoc per document (a 100-chunk manual).
	dlgChunks       = 100_000
	dlgChunksPerDoc = 100
	dlgChunkWords   = 200
	dlgForbidden    = 5000
	// dlgSessionTurns is how many customer messages a session gets before
	// the client opens the next one: a conversation long enough for the
	// rolling summary to be brought up to date, short enough that each
	// message recalls the same bounded window.
	dlgSessionTurns = 8
	// dlgWorkers is the concurrency of the throughput run.
	dlgWorkers = 8
)

// dlgQuestions are the customers' messages, in turn. None matches an
// intent rule or a high-risk keyword, so each goes through retrieval and
// generation; the short follow-up is expanded with the previous question.
var dlgQuestions = []string{
	"How long do refunds take to reach my payment method?",
	"How soon do orders ship from your warehouse after payment?",
	"Does the router warranty cover hardware faults?",
	"And for a laptop?",
	"Can I change the delivery address once it has shipped?",
	"Which payment methods do you accept for a subscription?",
	"How do I return a damaged printer cable?",
	"Is express shipping available on weekends?",
}

// The fake model's answers: whole, and in two pieces when streamed. The
// first piece is longer than the guard holds back (the longest word or
// high-risk keyword: 28 characters, "i'm going to murder everyone"), so
// the first delta can be released as soon as it arrives and measures the
// relay, not the guard's hold-back.
const (
	dlgAnswer      = "Refunds reach your original payment method within three working days after approval [1]."
	dlgFirstPiece  = "Refunds reach your original payment method within three working days after approval, counted from the day "
	dlgSecondPiece = "the returned parcel is scanned at our warehouse [1]."
)

// dlgRules are the tenant's 20 intent rules: the usual shortcuts of a shop
// (fixed answers and hand-offs), keywords in English and Chinese and a few
// RE2 patterns, none of which a benchmark question matches.
func dlgRules() []map[string]any {
	fixed := func(name, text string, keywords []string, patterns ...string) map[string]any {
		return map[string]any{"name": name, "keywords": keywords, "patterns": append([]string{}, patterns...),
			"responseType": "fixed", "fixedText": text, "priority": 10}
	}
	transfer := func(name string, keywords []string, patterns ...string) map[string]any {
		return map[string]any{"name": name, "keywords": keywords, "patterns": append([]string{}, patterns...),
			"responseType": "transfer", "transferReason": strings.ToLower(strings.ReplaceAll(name, " ", "_")), "priority": 5}
	}
	return []map[string]any{
		fixed("Greeting", "Hello! How can I help you today?", []string{"hello", "hi there", "good morning", "你好"}),
		fixed("Thanks", "You're welcome!", []string{"thank you", "thanks a lot", "谢谢"}),
		fixed("Goodbye", "Goodbye, and have a nice day!", []string{"goodbye", "see you", "再见"}),
		fixed("Opening hours", "We answer every day from 8:00 to 22:00.", []string{"opening hours", "business hours", "营业时间"}),
		fixed("Store locator", "Find your nearest store at example.com/stores.", []string{"nearest store", "store near me", "门店地址"}),
		fixed("Password", "Use 'Forgot password' on the sign-in page.", []string{"forgot my password", "reset password", "忘记密码"}),
		fixed("Sign-in trouble", "Clear your cookies and try again.", []string{"cannot log in", "can't sign in", "无法登录"}),
		fixed("Invoice", "Invoices are under Orders › Documents.", []string{"invoice copy", "vat invoice", "发票"}),
		fixed("Coupon", "Enter the code at checkout.", []string{"coupon code", "promo code", "优惠券"}),
		fixed("Gift card", "Your balance is on the gift card page.", []string{"gift card balance", "礼品卡余额"}),
		fixed("Loyalty", "Points arrive 14 days after delivery.", []string{"loyalty points", "会员积分"}),
		fixed("Unsubscribe", "Use the link at the bottom of any email.", []string{"unsubscribe", "退订"}),
		fixed("Careers", "See example.com/careers.", []string{"job opening", "careers"}),
		fixed("Price match", "We match any lower price within 7 days.", []string{"price match", "保价"}),
		fixed("Order status", "Track it under Orders.", []string{"where is my order", "order status", "订单状态"}, `order\s*#?\d{5,}`),
		fixed("Tracking number", "Track it on the carrier's site.", []string{"tracking code"}, `tracking\s*(?:no|number)\s*[a-z0-9]{6,}`),
		transfer("Human agent", []string{"human agent", "real person", "转人工"}),
		transfer("Complaint", []string{"file a complaint", "投诉"}),
		transfer("Cancel order", []string{"cancel my order", "取消订单"}),
		transfer("Phone number", []string{}, `\b1[3-9]\d{9}\b`),
	}
}

// dlgForbiddenWords makes n forbidden words as the guard's 5k benchmark
// does (a quarter Chinese, a third "contains"; most masked, some blocking
// or handing over), leaving out any that the questions or answers contain,
// so no benchmark reply is masked or withheld.
func dlgForbiddenWords(n int) []domain.ForbiddenWord {
	rng := rand.New(rand.NewPCG(5, 5000))
	const letters = "abcdefghijklmnopqrstuvwxyz"
	han := []rune("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正")
	texts := strings.ToLower(strings.Join(dlgQuestions, " ") + " " + dlgAnswer + dlgFirstPiece + dlgSecondPiece)
	seen := map[string]bool{}
	out := make([]domain.ForbiddenWord, 0, n)
	for i := 0; len(out) < n; i++ {
		var w strings.Builder
		k := 4 + rng.IntN(6)
		if i%4 == 3 {
			for range k / 2 {
				w.WriteRune(han[rng.IntN(len(han))])
			}
		} else {
			for range k {
				w.WriteByte(letters[rng.IntN(len(letters))])
			}
		}
		word := w.String()
		if seen[word] || strings.Contains(texts, word) {
			continue
		}
		seen[word] = true
		fw := domain.ForbiddenWord{ID: domain.NewID(domain.PrefixForbiddenWord), TenantID: dlgTenant, Word: word,
			MatchMode: domain.GuardMatchExact, Action: domain.GuardMask}
		if i%3 == 0 {
			fw.MatchMode = domain.GuardMatchContains
		}
		switch i % 10 {
		case 0:
			fw.Action = domain.GuardBlock
		case 1:
			fw.Action = domain.GuardTransfer
		}
		out = append(out, fw)
	}
	return out
}

// dlgSeed fills a migrated database before the service starts, as a
// replica restarting on a tenant of that size finds it: dlgChunks chunks
// with their offline embeddings, and all but the last of the forbidden
// words (the last goes through the API, whose write checks the whole
// configuration once). The documents, chunks and words bypass the API,
// which would take minutes to index 100k chunks or to compile the guard
// 5,000 times; the store writes the vectors, the words (with no check) and
// the knowledge base, and COPY the document and chunk rows.
func dlgSeed(b *testing.B, url string, words []domain.ForbiddenWord) (kbID string) {
	b.Helper()
	ctx := b.Context()
	start := time.Now()
	pool, err := pg.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	store := pg.New(pool)
	if _, err := store.EnsureTenant(ctx, dlgTenant); err != nil {
		b.Fatal(err)
	}
	kb, err := store.CreateKnowledgeBase(ctx, domain.KnowledgeBase{ID: domain.NewID(domain.PrefixKnowledgeBase), TenantID: dlgTenant, Name: "manuals"})
	if err != nil {
		b.Fatal(err)
	}

	emb := offline.New()
	docs := make([][]any, dlgChunks/dlgChunksPerDoc)
	docIDs := make([]string, len(docs))
	for d := range docs {
		docIDs[d] = domain.NewID(domain.PrefixDocument)
		docs[d] = []any{docIDs[d], dlgTenant, kb.ID, fmt.Sprintf("manual-%04d.txt", d), string(domain.DocReady), "text",
			int64(dlgChunksPerDoc * dlgChunkWords * 7), int32(dlgChunksPerDoc), emb.Model()}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"documents"},
		[]string{"id", "tenant_id", "kb_id", "name", "status", "kind", "size_bytes", "chunk_count", "embedding_model"},
		pgx.CopyFromRows(docs)); err != nil {
		b.Fatal(err)
	}
	chunks := make([]domain.Chunk, dlgChunks)
	rows := make([][]any, dlgChunks)
	for i := range chunks {
		doc := docIDs[i/dlgChunksPerDoc]
		text := strings.Join(testfiles.ProseLines(uint64(i), dlgChunkWords, 12), " ")
		// Tokens as cl100k counts English prose, about 4 per 3 words.
		chunks[i] = domain.Chunk{ID: chunk.ID(doc, i%dlgChunksPerDoc), TenantID: dlgTenant, KBID: kb.ID, DocumentID: doc,
			Index: int32(i % dlgChunksPerDoc), Text: text, Tokens: dlgChunkWords * 4 / 3}
		c := chunks[i]
		rows[i] = []any{c.ID, dlgTenant, kb.ID, doc, c.Index, c.Text, c.Tokens}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"chunks"},
		[]string{"id", "tenant_id", "kb_id", "document_id", "idx", "text", "tokens"}, pgx.CopyFromRows(rows)); err != nil {
		b.Fatal(err)
	}
	// One goroutine embeds while two write the batches before it.
	const batch = 2000
	recs := make(chan []domain.VectorRecord, 2)
	go func() {
		defer close(recs)
		for lo := 0; lo < dlgChunks; lo += batch {
			cs := chunks[lo:min(lo+batch, dlgChunks)]
			texts := make([]string, len(cs))
			for i, c := range cs {
				texts[i] = c.Text
			}
			vecs, err := emb.Embed(ctx, texts)
			if err != nil {
				return // only a cancelled context
			}
			out := make([]domain.VectorRecord, len(cs))
			for i, c := range cs {
				out[i] = domain.VectorRecord{ChunkID: c.ID, TenantID: dlgTenant, KBID: kb.ID, DocumentID: c.DocumentID,
					Model: emb.Model(), Vector: vecs[i], Metadata: map[string]any{}}
			}
			select {
			case recs <- out:
			case <-ctx.Done():
				return
			}
		}
	}()
	var saved atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for rs := range recs {
				if err := store.SaveVectors(ctx, dlgTenant, rs); err != nil {
					b.Error(err)
					return
				}
				saved.Add(int64(len(rs)))
			}
		})
	}
	wg.Wait()
	if saved.Load() != dlgChunks {
		b.Fatalf("%d vectors saved, want %d", saved.Load(), dlgChunks)
	}
	for _, w := range words {
		if _, err := store.CreateForbiddenWord(ctx, w, nil); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, dlgHistory, dlgTenant, dlgHistorySessions); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d chunks in %d documents, %d forbidden words and %d past conversations in %v",
		dlgChunks, len(docs), len(words), dlgHistorySessions, time.Since(start).Round(time.Millisecond))
	return kb.ID
}

// dlgHistorySessions past conversations of 16 messages (8 replies, each
// with a tool trace) are seeded with the tenant: a tenant of 100k chunks
// has been talking to its customers. It matters to the planner: the
// statistics that the seeding's VACUUM (ANALYZE) takes of empty chat tables
// would make every cached plan of a message's statements scan them whole,
// and a benchmark grows them faster than autovacuum (a minute's nap) would
// analyze them again; the messages then cost PostgreSQL twice the CPU they
// cost a service in use.
const dlgHistorySessions = 5000

// dlgHistory writes the past conversations ($1 tenant, $2 sessions).
const dlgHistory = `
WITH s AS (
    INSERT INTO chat_sessions (id, tenant_id, channel, message_count, created_at, updated_at)
    SELECT 'ses_history_' || g, $1, 'web', 16, now() - interval '30 days', now() - interval '30 days'
    FROM generate_series(1, $2::int) g
    RETURNING id
), m AS (
    INSERT INTO chat_messages (id, tenant_id, session_id, role, content, created_at)
    SELECT s.id || '_' || lpad(n::text, 2, '0'), $1, s.id, CASE WHEN n % 2 = 0 THEN 'user' ELSE 'assistant' END,
        'A question of a few words, or its answer.', now() - interval '30 days'
    FROM s, generate_series(0, 15) n
    RETURNING id, session_id, role
)
INSERT INTO tool_traces (id, tenant_id, session_id, message_id, tool, created_at)
SELECT 'trace_' || m.id, $1, m.session_id, m.id, 'retrieve', now() - interval '30 days' FROM m WHERE m.role = 'assistant'`

// dlgModel is a fake OpenAI-compatible chat model on loopback that answers
// at once: a whole answer, or a stream whose first piece is written and
// flushed at once and the rest 2 ms later (so the first delta the client
// sees can only have come from the first piece). When times is set, every
// streamed answer sends there when its request arrived and when its first
// piece was flushed.
type dlgModel struct {
	srv   *httptest.Server
	times chan modelTimes
}

func newDLGModel(b *testing.B, times chan modelTimes) *dlgModel {
	m := &dlgModel{times: times}
	whole, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": dlgAnswer}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 900, "completion_tokens": 20},
	})
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var t modelTimes
		t.received = time.Now()
		var body struct {
			Stream bool `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "want a chat completion", http.StatusBadRequest)
			return
		}
		if !body.Stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(whole)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		piece := func(s string) {
			data, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": s}}}})
			fmt.Fprintf(w, "data: %s\n\n", data)
			fl.Flush()
		}
		piece(dlgFirstPiece)
		t.firstToken = time.Now()
		time.Sleep(2 * time.Millisecond)
		piece(dlgSecondPiece)
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		fl.Flush()
		if m.times != nil {
			m.times <- t
		}
	}))
	b.Cleanup(m.srv.Close)
	return m
}

// dlgBench is the benchmark tenant on a running service, and a client
// that keeps a connection per worker (the default transport keeps two).
type dlgBench struct {
	e      *env
	client *http.Client
}

// newDLGBench seeds a database, starts the service on it and finishes the
// tenant through the API: the last forbidden word, the 20 intent rules,
// the FAQ document (indexed by the real pipeline), the retrieval strategy
// that suits the offline embedder (as labEnv's) and the chat model.
func newDLGBench(b *testing.B, model *dlgModel) *dlgBench {
	b.Helper()
	words := dlgForbiddenWords(dlgForbidden)
	url := pgtest.NewDatabase(b)
	kb := dlgSeed(b, url, words[:len(words)-1])
	// Vacuum and analyze what was seeded now, so that autovacuum's work on
	// 100k fresh rows does not land in the timed messages' PostgreSQL CPU.
	vacuum, err := pgx.Connect(b.Context(), url)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := vacuum.Exec(b.Context(), "VACUUM (ANALYZE)"); err != nil {
		b.Fatal(err)
	}
	_ = vacuum.Close(b.Context())
	start := time.Now()
	e := startEnvLogging(b, testConfig(b, url), io.Discard)
	b.Logf("service started (vectors and lexical index loaded) in %v", time.Since(start).Round(time.Millisecond))

	ok := func(r response, want int, what string) {
		if r.Status != want {
			b.Fatalf("%s: %d %s", what, r.Status, r.Body)
		}
	}
	last := words[len(words)-1]
	ok(e.do(req{method: "POST", path: "/api/v1/admin/guardrails/forbidden-words", tenant: dlgTenant,
		body: map[string]any{"word": last.Word, "matchMode": last.MatchMode, "action": last.Action}}), http.StatusCreated, "forbidden word")
	var n int
	if err := e.db.QueryRow(b.Context(), "SELECT count(*) FROM guard_forbidden_words WHERE tenant_id = $1", dlgTenant).Scan(&n); err != nil || n != dlgForbidden {
		b.Fatalf("%d forbidden words (%v), want %d", n, err, dlgForbidden)
	}
	for _, rule := range dlgRules() {
		ok(e.do(req{method: "POST", path: "/api/v1/admin/intent-rules", tenant: dlgTenant, body: rule}), http.StatusCreated, "intent rule")
	}
	if _, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(faq)}); job["state"] != "succeeded" {
		b.Fatalf("indexing the FAQ: %v", job)
	}
	ok(e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", tenant: dlgTenant,
		// The chunks are synthetic prose: answerability is still computed
		// (its cost is measured) but does not gate, so every message runs
		// every stage. Answer quality on real text is make eval's.
		body: strategyBody(map[string]any{"mode": "hybrid", "scoreThreshold": 0.1, "minTopScore": 0.15, "transferConfidenceThreshold": 0.2,
			"minAnswerability": 0})}),
		http.StatusOK, "strategy")
	ok(e.do(req{method: "PUT", path: "/api/v1/admin/llm/config/chat", tenant: dlgTenant, body: map[string]any{
		"provider": "openai_compatible", "baseUrl": model.srv.URL + "/v1", "apiKey": "sk-bench-0000000000000", "model": "m", "version": 0,
	}}), http.StatusOK, "chat model")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * dlgWorkers}}
	b.Cleanup(client.CloseIdleConnections)
	return &dlgBench{e: e, client: client}
}

// sessions opens n chat sessions through the API.
func (d *dlgBench) sessions(n int) []string {
	out := make([]string, n)
	for i := range out {
		r := d.e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: dlgTenant, body: map[string]any{"channel": "web"}})
		if r.Status != http.StatusCreated {
			d.e.t.Fatalf("session: %d %s", r.Status, r.Body)
		}
		out[i] = r.JSON(d.e.t)["id"].(string)
	}
	return out
}

// post sends a customer message; accept "text/event-stream" asks for the
// events. The caller closes the body.
func (d *dlgBench) post(ctx context.Context, session, message, accept string) (*http.Response, error) {
	body, _ := json.Marshal(map[string]any{"message": message})
	hr, err := http.NewRequestWithContext(ctx, "POST", d.e.srv.URL+"/api/v1/chat/sessions/"+session+"/messages", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", accept)
	hr.Header.Set("X-API-Key", d.e.root)
	hr.Header.Set("X-Tenant-Id", dlgTenant)
	return d.client.Do(hr)
}

// send posts a message for a JSON reply and checks that it is the model's
// answer, unmasked and cited: retrieval found evidence, no rule or guard
// interfered.
func (d *dlgBench) send(ctx context.Context, session, message string) error {
	res, err := d.post(ctx, session, message, "application/json")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%q: %d %s", message, res.StatusCode, data)
	}
	var reply struct {
		Answer       string `json:"answer"`
		ResponseType string `json:"responseType"`
		Sources      []any  `json:"sources"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		return err
	}
	if reply.ResponseType != "rag" || reply.Answer != dlgAnswer || len(reply.Sources) == 0 {
		return fmt.Errorf("%q was not answered by the model from evidence: %s", message, data)
	}
	return nil
}

// BenchmarkDialogueMessage measures POST /chat/sessions/{id}/messages
// (JSON reply) through the real HTTP stack and all ten stages, on a tenant
// of 100,000 chunks, 20 intent rules (none matching) and 5,000 forbidden
// words, with a chat model that answers at once. A session takes
// dlgSessionTurns messages, one after the other; sessions are opened
// before the timer starts. Sub-benchmarks:
//
//   - serial: one message at a time, the latency of the pipeline alone;
//   - workers-8: eight clients at once, each in its own session, for the
//     throughput (and the latency under that load).
//
// Each reports p50-ms and p99-ms (per message, client side), msgs/s, and
// the mean of each stage's stored duration (<stage>-ms) over a sample of
// the replies; persist's stored duration stops before the reply is
// written, so the end-to-end latency is the measure of persistence.
func BenchmarkDialogueMessage(b *testing.B) {
	d := newDLGBench(b, newDLGModel(b, nil))
	// Warm up: connections, caches (key, tenant, rules, guard, model,
	// strategy, embedder), and one contract check of a reply.
	for i, s := range d.sessions(2) {
		for _, q := range dlgQuestions {
			if i == 0 {
				if err := d.send(b.Context(), s, q); err != nil {
					b.Fatal(err)
				}
				continue
			}
			r := d.e.do(req{method: "POST", path: "/api/v1/chat/sessions/" + s + "/messages", tenant: dlgTenant, body: map[string]any{"message": q}})
			if r.Status != http.StatusOK || r.JSON(b)["responseType"] != "rag" {
				b.Fatalf("%q: %d %s", q, r.Status, r.Body)
			}
		}
	}
	for _, workers := range []int{1, dlgWorkers} {
		name := "serial"
		if workers > 1 {
			name = fmt.Sprintf("workers-%d", workers)
		}
		b.Run(name, func(b *testing.B) { d.on(b).runMessages(b, workers) })
	}
}

// on is d for a sub-benchmark: the same service, with the set-up requests
// (through env.do) failing b rather than its parent.
func (d *dlgBench) on(b *testing.B) *dlgBench {
	e := *d.e
	e.t = b
	return &dlgBench{e: &e, client: d.client}
}

// runMessages sends b.N messages from workers clients and reports the
// latencies, the throughput and the stage means.
func (d *dlgBench) runMessages(b *testing.B, workers int) {
	sessions := d.sessions(b.N/dlgSessionTurns + workers)
	var nextSession, nextMessage atomic.Int64
	lat := make([]time.Duration, b.N)
	var failed atomic.Bool
	var wg sync.WaitGroup
	cpu0, pg0 := cputime.Process(), cputime.Postgres()
	stopProfile := profileLoop(b)
	b.ResetTimer()
	for range workers {
		wg.Go(func() {
			session, turns := "", dlgSessionTurns
			for !failed.Load() {
				i := int(nextMessage.Add(1) - 1)
				if i >= b.N {
					return
				}
				if turns == dlgSessionTurns {
					session, turns = sessions[nextSession.Add(1)-1], 0
				}
				// A session asks the questions in order, so the follow-up
				// always follows the question it refers to.
				q := dlgQuestions[turns%len(dlgQuestions)]
				turns++
				start := time.Now()
				err := d.send(b.Context(), session, q)
				lat[i] = time.Since(start)
				if err != nil {
					b.Error(err)
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	stopProfile()
	cpu, pg := cputime.Process()-cpu0, cputime.Postgres()-pg0
	if failed.Load() {
		return
	}
	// The CPU a message costs: this process (the service, its client and
	// its fake model) and PostgreSQL. On this machine's cores, their sum
	// bounds the messages a second.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "proc-cpu-ms/msg")
	b.ReportMetric(float64(pg.Microseconds())/1000/float64(b.N), "pg-cpu-ms/msg")
	slices.Sort(lat)
	b.ReportMetric(percentileMs(lat, 0.50), "p50-ms")
	b.ReportMetric(percentileMs(lat, 0.99), "p99-ms")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	for stage, ms := range d.stageMeans(sessions[:min(int(nextSession.Load()), 16)]) {
		b.ReportMetric(ms, stage+"-ms")
	}
}

// dlgProfileEnv names a file prefix: when set, each sub-benchmark of
// more than one message writes the CPU profile of its timed loop alone
// (not the minute of set-up before it) to <prefix>.<sub-benchmark>, for
// go tool pprof.
const dlgProfileEnv = "BENCH_CPUPROFILE"

// profileLoop starts the CPU profile dlgProfileEnv asks for, and returns
// what stops it.
func profileLoop(b *testing.B) (stop func()) {
	prefix := os.Getenv(dlgProfileEnv)
	if prefix == "" || b.N == 1 {
		return func() {}
	}
	name := prefix + "." + b.Name()[strings.LastIndexByte(b.Name(), '/')+1:]
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Error(err)
		}
	}
}

// stageMeans reads the stored replies of sessions (the admin session view)
// and returns the mean duration of each stage that ran, in milliseconds.
func (d *dlgBench) stageMeans(sessions []string) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, s := range sessions {
		r := d.e.do(req{method: "GET", path: "/api/v1/admin/sessions/" + s, tenant: dlgTenant})
		var body struct {
			Messages []struct {
				Monitoring *struct {
					Stages []struct {
						Stage      string  `json:"stage"`
						DurationMs float64 `json:"durationMs"`
						Outcome    string  `json:"outcome"`
					} `json:"stages"`
				} `json:"monitoring"`
			} `json:"messages"`
		}
		if r.Status != http.StatusOK || json.Unmarshal(r.Body, &body) != nil {
			d.e.t.Fatalf("session %s: %d %s", s, r.Status, r.Body)
		}
		for _, m := range body.Messages {
			if m.Monitoring == nil {
				continue
			}
			for _, st := range m.Monitoring.Stages {
				if st.Outcome != "skipped" {
					sum[st.Stage] += st.DurationMs
					n[st.Stage]++
				}
			}
		}
	}
	out := map[string]float64{}
	for k, v := range sum {
		out[k] = v / float64(n[k])
	}
	return out
}

// BenchmarkDialogueFirstDelta measures what the service adds between the
// model's first token and the customer's first `delta` event of a
// streamed reply (Accept: text/event-stream), on the same tenant as
// BenchmarkDialogueMessage (all 5,000 forbidden words in the output
// guard). The model's first piece is longer than the guard's hold-back
// (see dlgFirstPiece), so the relay is measured, not the hold-back: a
// first token shorter than that is held until enough text follows, by
// design. One message at a time. Reported:
//
//   - first-delta-p50/p99-ms: the model flushes its first token → the
//     client has the first delta (the provider's stream parsing, the
//     output guard's stream, the SSE writer and flush, both HTTP hops);
//   - added-p50/p99-ms: request start → first delta, minus the model's own
//     time to first token: everything before the first word, the stages
//     up to generation included.
func BenchmarkDialogueFirstDelta(b *testing.B) {
	times := make(chan modelTimes, 1)
	d := newDLGBench(b, newDLGModel(b, times))
	// once streams one reply and returns when the request started and when
	// the first delta arrived; the stream is read to its end and checked.
	once := func(session, message string) (start, first time.Time) {
		start = time.Now()
		res, err := d.post(b.Context(), session, message, "text/event-stream")
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
			b.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		var text strings.Builder
		names := scanSSE(b, res.Body, func(event, data string) {
			if event == "delta" {
				if first.IsZero() {
					first = time.Now()
				}
				text.WriteString(deltaText(b, data))
			}
		})
		if first.IsZero() || names[len(names)-1] != "done" || text.String() != dlgFirstPiece+dlgSecondPiece {
			b.Fatalf("%q: events %v, answer %q", message, names, text.String())
		}
		return start, first
	}
	warm := d.sessions(1)[0] // warm up, as BenchmarkDialogueMessage
	for _, q := range dlgQuestions {
		once(warm, q)
		<-times
	}

	// b.Loop runs this function once, so the tenant is set up once.
	var relay, added []time.Duration
	session := ""
	for i := 0; b.Loop(); i++ {
		if i%dlgSessionTurns == 0 {
			b.StopTimer()
			session = d.sessions(1)[0]
			b.StartTimer()
		}
		start, first := once(session, dlgQuestions[i%len(dlgQuestions)])
		m := <-times
		relay = append(relay, first.Sub(m.firstToken))
		added = append(added, first.Sub(start)-m.firstToken.Sub(m.received))
	}
	slices.Sort(relay)
	slices.Sort(added)
	b.ReportMetric(percentileMs(relay, 0.50), "first-delta-p50-ms")
	b.ReportMetric(percentileMs(relay, 0.99), "first-delta-p99-ms")
	b.ReportMetric(percentileMs(added, 0.50), "added-p50-ms")
	b.ReportMetric(percentileMs(added, 0.99), "added-p99-ms")
}

// percentileMs is the p-th percentile of sorted durations, in
// milliseconds (nearest rank).
func percentileMs(sorted []time.Duration, p float64) float64 {
	i := min(len(sorted)-1, max(0, int(math.Ceil(p*float64(len(sorted))))-1))
	return float64(sorted[i]) / 1e6
}
