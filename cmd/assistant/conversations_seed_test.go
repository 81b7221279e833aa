package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// seedSpec describes conversations written straight into the database with
// COPY, for the tests and benchmarks that need more messages than the API
// makes in reasonable time (100k, 1M). The rows have the shapes the
// dialogue stores; what the tests check of them is how the service reads
// them back, never the rows themselves.
type seedSpec struct {
	tenant string
	// messages is the total, customer messages and replies alternating;
	// perSession of them (even) make a session.
	messages, perSession int
	// The sessions start evenly over [end-span, end); a session's messages
	// are 2 seconds apart.
	end  time.Time
	span time.Duration
	// rules are intent rules of the tenant that the fixed replies hit.
	rules []string
	// questions is how many distinct customer texts there are.
	questions int
}

// seedCounts are what seedConversations wrote.
type seedCounts struct {
	sessions, messages, replies, handoffs, intentHits, guardHits int
}

// seedIDs makes ids that sort like the service's (UUIDv7-shaped: the
// millisecond first), with a counter that keeps the ids of one millisecond
// in order and unique.
type seedIDs struct{ n uint64 }

func (s *seedIDs) next(prefix string, at time.Time) string {
	s.n++
	return fmt.Sprintf("%s%012x7000%x%015x", prefix, at.UnixMilli(), 8, s.n)
}

// seedConversations copies the sessions, their messages, the intent hits
// of the fixed replies and the guard hits of some others. Replies cycle
// through 20 kinds: 5 fixed (a rule hit), 10 rag (one in 50 with a masked
// word), 1 flow, and 4 hand-offs (low_score twice, no_evidence, and a
// high-risk message with its input guard hit).
func seedConversations(tb testing.TB, pool *pgxpool.Pool, s seedSpec) seedCounts {
	tb.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	ids := &seedIDs{}
	nSessions := s.messages / s.perSession
	start := s.end.Add(-s.span)
	step := s.span / time.Duration(nSessions)
	type sessionRow struct {
		id string
		at time.Time
	}
	sessions := make([]sessionRow, nSessions)
	for i := range sessions {
		at := start.Add(time.Duration(i) * step)
		sessions[i] = sessionRow{id: ids.next("ses_", at), at: at}
	}
	channels := []string{"web", "app", "wechat"}
	_, err := pool.CopyFrom(ctx, pgx.Identifier{"chat_sessions"},
		[]string{"id", "tenant_id", "channel", "message_count", "created_at", "updated_at"},
		pgx.CopyFromSlice(nSessions, func(i int) ([]any, error) {
			last := sessions[i].at.Add(time.Duration(s.perSession) * 2 * time.Second)
			return []any{sessions[i].id, s.tenant, channels[i%len(channels)], int32(s.perSession), sessions[i].at, last}, nil
		}))
	require.NoError(tb, err)

	var counts seedCounts
	counts.sessions = nSessions
	type hit struct {
		session, message, rule string
		at                     time.Time
	}
	var intentHits, inputHits, outputHits []hit
	session, msg, kind := 0, 0, 0
	question := ""
	_, err = pool.CopyFrom(ctx, pgx.Identifier{"chat_messages"},
		[]string{"id", "tenant_id", "session_id", "role", "content", "response_type", "confidence", "should_transfer",
			"transfer_reason", "sources", "trace_id", "status", "monitoring", "created_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if session == nSessions {
				return nil, nil
			}
			sr := sessions[session]
			at := sr.at.Add(time.Duration(msg) * 2 * time.Second)
			id := ids.next("msg_", at)
			var row []any
			if msg%2 == 0 {
				question = fmt.Sprintf("Question %d: how do I change setting %d?", rng.IntN(s.questions), rng.IntN(9))
				if kind%20 == 19 {
					question = "I want to kill myself"
				}
				row = []any{id, s.tenant, sr.id, "user", question, nil, nil, false, nil, []byte("[]"), "", "complete", nil, at}
			} else {
				row = seedReply(rng, s, kind, id, sr.id, at)
				counts.replies++
				switch k := kind % 20; {
				case k < 5 && len(s.rules) > 0:
					intentHits = append(intentHits, hit{sr.id, id, s.rules[kind%len(s.rules)], at})
				case k >= 5 && k < 15 && kind%50 == 7:
					outputHits = append(outputHits, hit{sr.id, id, "", at})
				case k == 19:
					inputHits = append(inputHits, hit{sr.id, id, "", at})
				}
				if k := kind % 20; k >= 16 {
					counts.handoffs++
				}
				kind++
			}
			counts.messages++
			if msg++; msg == s.perSession {
				msg, session = 0, session+1
			}
			return row, nil
		}))
	require.NoError(tb, err)

	_, err = pool.CopyFrom(ctx, pgx.Identifier{"intent_hits"},
		[]string{"tenant_id", "rule_id", "session_id", "message_id", "keywords", "patterns", "at"},
		pgx.CopyFromSlice(len(intentHits), func(i int) ([]any, error) {
			h := intentHits[i]
			return []any{s.tenant, h.rule, h.session, h.message, []string{"hello"}, []string{}, h.at}, nil
		}))
	require.NoError(tb, err)
	guard := append(append([]hit{}, inputHits...), outputHits...)
	_, err = pool.CopyFrom(ctx, pgx.Identifier{"guard_hits"},
		[]string{"tenant_id", "session_id", "message_id", "stage", "kind", "category", "pattern", "action", "at"},
		pgx.CopyFromSlice(len(guard), func(i int) ([]any, error) {
			h := guard[i]
			if i < len(inputHits) {
				return []any{s.tenant, h.session, h.message, "input", "high_risk", "self_harm", "kill myself", "transfer", h.at}, nil
			}
			return []any{s.tenant, h.session, h.message, "output", "word", "", "warranty", "mask", h.at}, nil
		}))
	require.NoError(tb, err)
	counts.intentHits, counts.guardHits = len(intentHits), len(guard)
	return counts
}

// seedReply is the kind-th reply's row.
func seedReply(rng *rand.Rand, s seedSpec, kind int, id, session string, at time.Time) []any {
	k := kind % 20
	typ, confidence, transfer, reason := "rag", 0.35+0.6*rng.Float64(), false, any(nil)
	answer, sources, extra := "Refunds reach your original payment method within three working days.", `[{"documentId":"doc_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c","documentName":"faq.txt","chunkId":"chk_5f0c1e2d3b4a59687766554433221100","page":1,"score":0.8}]`, ""
	model := `,"model":"offline-extractive-v1"`
	switch {
	case k < 5:
		typ, confidence, answer, sources, model = "fixed", 1, "Hello! How can I help you today?", "[]", ""
		if len(s.rules) > 0 {
			extra = fmt.Sprintf(`,"ruleId":%q`, s.rules[kind%len(s.rules)])
		}
	case k == 15:
		typ, confidence, answer, sources, model = "flow", 1, "Please tell me your order number.", "[]", ""
		extra = `,"flowId":"flow_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c","flowStep":1`
	case k >= 16:
		typ, transfer, answer, sources = "transfer", true, "One moment, a colleague will take over.", "[]"
		reason = []string{"low_score", "low_score", "no_evidence"}[min(k-16, 2)]
		confidence = 0.1 + 0.2*rng.Float64()
		if k == 19 {
			reason, model = "high_risk:self_harm", ""
		}
	}
	confidence = float64(int(confidence*1e4)) / 1e4
	var conf any = confidence
	if reason == "high_risk:self_harm" {
		conf = nil
	}
	monitoring := fmt.Appendf(nil, `{"stages":[{"stage":"intent","startedAt":%q,"durationUs":%d,"outcome":"no_match"},`+
		`{"stage":"retrieval","startedAt":%q,"durationUs":%d,"outcome":"hits"},`+
		`{"stage":"generation","startedAt":%q,"durationUs":%d,"outcome":"answered"}],"guardHits":[],"tokensIn":%d,"tokensOut":%d%s%s,"retries":0}`,
		at.Format(time.RFC3339Nano), 50+rng.IntN(400), at.Format(time.RFC3339Nano), 1000+rng.IntN(30000),
		at.Format(time.RFC3339Nano), 500+rng.IntN(120000), 300+rng.IntN(900), 20+rng.IntN(200), model, extra)
	trace := fmt.Sprintf("trc_%032x", rng.Uint64())
	return []any{id, s.tenant, session, "assistant", answer, typ, conf, transfer, reason, []byte(sources), trace, "complete", monitoring, at}
}
