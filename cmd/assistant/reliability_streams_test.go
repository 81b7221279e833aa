package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pgtest"
)

// streamRSSHeadroom bounds how much the service's resident memory may grow
// under the load. What the load legitimately adds is per stream, not per
// reply: a goroutine, a pipe and connection buffers for each of up to 200
// streams (a few MiB), and the GC's headroom over the live heap (GOGC=100
// lets the heap reach twice the live set). 100 MiB is several times that,
// and well under what keeping a few KiB per reply does over the full run's
// ~20,000 replies (finished replies held in memory for their 10-minute
// replay TTL grew RSS by 125 MiB before they were dropped once stored).
const streamRSSHeadroom = 100 << 20

// streamQuestion is the i-th customer message of a conversation, cycling
// through covered questions in both languages, a greeting and an
// uncovered one that is handed over.
func streamQuestion(i int) string {
	qs := []string{
		"How long do refunds take to reach my payment method?",
		"How long does delivery take once my order ships?",
		"Does every router carry a warranty for hardware faults?",
		"退款多久能原路退回？",
		"Hello there",
		"Can I pay with cryptocurrency at the opera?",
	}
	return qs[i%len(qs)]
}

// Many concurrent SSE conversations against the real binary, each sending
// messages one after another for a while: every reply is a well-formed
// stream ending with done, every reply is stored, and the service's RSS
// stays bounded.
func TestReliabilityStreamsUnderLoad(t *testing.T) {
	bin := buildService(t)
	cfg := testConfig(t, pgtest.NewDatabase(t))
	p := newServiceProc(t, bin, cfg)
	p.start()
	e := remoteEnv(t, cfg, p.URL())
	seedFAQTenant(t, e)

	streams := reliabilitySize(20, 200)
	length := reliabilitySize(5*time.Second, 60*time.Second)
	client := newSSEClient(cfg.DefaultAPIKey, "acme", streams)
	sessions := make([]string, streams)
	for i := range sessions {
		sessions[i] = e.newChat("acme", nil).session
	}
	// Warm up: one reply, so the baseline has the answering path loaded.
	warm := client.post(t.Context(), p.URL(), e.newChat("acme", nil).session, streamQuestion(0), "")
	require.NoError(t, warm.err)
	before := p.rssBytes()

	ctx, cancel := context.WithTimeout(t.Context(), length)
	defer cancel()
	results := make([]streamConversation, streams)
	var wg sync.WaitGroup
	for i := range streams {
		wg.Go(func() { results[i] = streamConverse(ctx, client, p.URL(), sessions[i], i) })
	}
	peak := before
	for ctx.Err() == nil {
		peak = max(peak, p.rssBytes())
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	wg.Wait()
	after := p.rssBytes()
	peak = max(peak, after)

	var latencies []time.Duration
	var errs []string
	messages := 0
	for i, r := range results {
		latencies = append(latencies, r.latencies...)
		messages += r.sent
		for _, err := range r.errs {
			errs = append(errs, fmt.Sprintf("conversation %d: %v", i, err))
		}
	}
	reportFigure(t, "streams under load", "concurrent streams", streams)
	reportFigure(t, "streams under load", "duration", length)
	reportFigure(t, "streams under load", "messages", messages)
	reportFigure(t, "streams under load", "errors", len(errs))
	reportFigure(t, "streams under load", "reply time p50 / p99",
		fmt.Sprintf("%s / %s", streamPercentile(latencies, 50).Round(time.Millisecond), streamPercentile(latencies, 99).Round(time.Millisecond)))
	reportFigure(t, "streams under load", "RSS before / after (peak)", fmt.Sprintf("%s / %s (%s)", streamMiB(before), streamMiB(after), streamMiB(peak)))

	assert.Empty(t, errs[:min(len(errs), 10)], "every stream is a 200 of well-formed events ending with done (first 10 errors)")
	for i, r := range results {
		assert.Positive(t, r.sent, "conversation %d got to send", i)
	}
	assert.LessOrEqual(t, peak, before+streamRSSHeadroom, "RSS before %s, peak %s", streamMiB(before), streamMiB(peak))

	// Every message has its reply in the stored history, once.
	for i, r := range results {
		assert.Equal(t, 2*r.sent, len(storedMessages(t, e, sessions[i])), "conversation %d: each message and its reply stored", i)
	}
}

// streamConversation is what one conversation of the load saw.
type streamConversation struct {
	sent      int
	latencies []time.Duration
	errs      []error
}

// streamConverse sends messages to the session one after another until ctx ends,
// checking each reply's stream. A message whose reply was under way when
// ctx ended is not counted.
func streamConverse(ctx context.Context, c *sseClient, base, session string, n int) streamConversation {
	var out streamConversation
	// A reply under way at the end is let finish, so its message is
	// counted and stored like the others.
	replyCtx := context.WithoutCancel(ctx)
	for i := 0; ctx.Err() == nil; i++ {
		start := time.Now()
		r := c.post(replyCtx, base, session, streamQuestion(n+i), "")
		out.sent++
		if r.err != nil {
			out.errs = append(out.errs, r.err)
			continue
		}
		if _, err := checkReplyEvents(session, 0, "", r.events); err != nil {
			out.errs = append(out.errs, err)
			continue
		}
		if last := r.last(); last.name != "done" {
			out.errs = append(out.errs, fmt.Errorf("the reply ended with %s %v", last.name, last.data))
			continue
		}
		out.latencies = append(out.latencies, r.endAt.Sub(start))
		if r.last().data["handoffState"] == "waiting_for_agent" {
			// An agent takes the handed-over session and gives it back, so
			// the conversation goes on with the bot.
			if err := c.handBack(replyCtx, base, session); err != nil {
				out.errs = append(out.errs, err)
			}
		}
	}
	return out
}

// seedFAQTenant gives tenant acme the FAQ knowledge base, indexed, on the
// retrieval strategy labEnv uses for the offline embedder.
func seedFAQTenant(t *testing.T, e *env) {
	t.Helper()
	kb := e.createKB("", "acme", "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(faq)})
	require.Equal(t, "succeeded", job["state"])
	r := e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", tenant: "acme",
		body: strategyBody(map[string]any{"mode": "hybrid", "scoreThreshold": 0.1, "minTopScore": 0.15, "transferConfidenceThreshold": 0.2})})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

// storedMessages is a session's whole stored history, oldest first.
func storedMessages(t *testing.T, e *env, session string) []map[string]any {
	t.Helper()
	var out []map[string]any
	path := "/api/v1/chat/sessions/" + session + "/messages?limit=200"
	for {
		r := e.do(req{method: "GET", path: path, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		body := r.JSON(t)
		for _, it := range body["items"].([]any) {
			out = append(out, it.(map[string]any))
		}
		next, ok := body["nextCursor"].(string)
		if !ok {
			return out
		}
		path = "/api/v1/chat/sessions/" + session + "/messages?limit=200&cursor=" + next
	}
}
