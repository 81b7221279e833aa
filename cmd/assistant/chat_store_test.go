package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// newChatSession stores a session directly and returns it as stored.
func newChatSession(t *testing.T, e *env, tenant domain.TenantID) domain.ChatSession {
	t.Helper()
	_, err := e.app.tenants.Enter(t.Context(), domain.Principal{Scopes: []domain.Scope{domain.ScopeAdmin}}, tenant)
	require.NoError(t, err)
	s, err := e.app.store.CreateSession(t.Context(), domain.ChatSession{
		ID: domain.NewID(domain.PrefixSession), TenantID: tenant, Channel: "web", Slots: map[string]string{"product": "router"},
	})
	require.NoError(t, err)
	return s
}

func TestChatStoreSaveTurn(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	st := e.app.store

	t.Run("a turn stores the reply whole and the session's new state", func(t *testing.T) {
		s := newChatSession(t, e, "acme")
		turn := chatRagTurn(s, "Refunds take 3 days.")
		turn.Session.Slots = map[string]string{"product": "router", "order_no": "A1"}
		deadline := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)
		turn.Session.FlowState, turn.Session.FlowDeadline = []byte(`{"FlowID":"flow_1","StepNo":1}`), &deadline
		require.NoError(t, st.SaveTurn(ctx, turn))

		got, err := st.GetMessage(ctx, "acme", s.ID, turn.Reply.ID)
		require.NoError(t, err)
		want := turn.Reply
		want.TenantID, want.SessionID = "acme", s.ID
		want.CreatedAt = want.CreatedAt.Truncate(time.Microsecond) // timestamptz; times inside the monitoring JSON keep nanoseconds
		for i := range want.Monitoring.GuardHits {
			h := &want.Monitoring.GuardHits[i]
			h.TenantID, h.SessionID, h.MessageID = "acme", s.ID, want.ID
		}
		assert.Equal(t, want, got)

		after, err := st.GetSession(ctx, "acme", s.ID)
		require.NoError(t, err)
		assert.Equal(t, 1, after.MessageCount)
		assert.Equal(t, "The customer asks about refunds.", after.Summary)
		assert.Equal(t, turn.Reply.ID, after.SummarizedUpTo)
		assert.Equal(t, map[string]string{"product": "router", "order_no": "A1"}, after.Slots)
		assert.JSONEq(t, `{"FlowID":"flow_1","StepNo":1}`, string(after.FlowState))
		require.NotNil(t, after.FlowDeadline)
		assert.True(t, deadline.Equal(*after.FlowDeadline))
		assert.True(t, after.UpdatedAt.After(s.UpdatedAt))

		events, err := st.ReplyEvents(ctx, "acme", turn.Reply.ID, 1)
		require.NoError(t, err)
		require.Len(t, events, 2)
		assert.Equal(t, 2, events[0].Seq)
		assert.Equal(t, "delta", events[0].Event)
		assert.Equal(t, `{"text":"Refunds"}`, string(events[0].Data), "event data is kept byte for byte")
		assert.Equal(t, "done", events[1].Event)
		none, err := st.ReplyEvents(ctx, "globex", turn.Reply.ID, 0)
		require.NoError(t, err)
		assert.Empty(t, none, "another tenant sees no events")
	})
	t.Run("a turn stores its monitoring records with it", func(t *testing.T) {
		s := newChatSession(t, e, "globex")
		turn := chatRagTurn(s, "Refunds take 3 days.")
		turn.Records = turnRecords("globex")
		require.NoError(t, st.SaveTurn(ctx, turn))
		recent, err := st.RecentRetrievals(ctx, "globex", 10)
		require.NoError(t, err)
		require.Len(t, recent, 2, "both retrievals the answer ran")
		assert.EqualValues(t, 3, recent[0].Hits+recent[1].Hits)
		stats, err := st.IntentRuleStats(ctx, "globex", time.Now().Add(-time.Hour), time.Now().Add(time.Hour), domain.PageRequest{Limit: 10})
		require.NoError(t, err)
		assert.EqualValues(t, 1, stats.Evaluated, "the intent stage's evaluation is counted")
	})
	t.Run("a failing event insert leaves nothing of the turn", func(t *testing.T) {
		s := newChatSession(t, e, "acme")
		turn := chatRagTurn(s, "never stored")
		turn.Records = turnRecords("acme")
		turn.Session.Slots = map[string]string{"changed": "yes"}
		turn.Events = append(turn.Events, domain.ReplyEvent{Seq: 2, Event: "delta", Data: []byte(`{"text":"dup"}`)})
		err := st.SaveTurn(ctx, turn)
		require.Error(t, err)
		assert.Equal(t, domain.CodeConflict, domain.ErrorCodeOf(err), "a repeated seq breaks the key: %v", err)

		_, err = st.GetMessage(ctx, "acme", s.ID, turn.Reply.ID)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "no reply")
		traces, err := st.ListToolTraces(ctx, "acme", s.ID, domain.PageRequest{Limit: 10})
		require.NoError(t, err)
		assert.Empty(t, traces.Items, "no tool traces")
		events, err := st.ReplyEvents(ctx, "acme", turn.Reply.ID, 0)
		require.NoError(t, err)
		assert.Empty(t, events, "no events")
		after, err := st.GetSession(ctx, "acme", s.ID)
		require.NoError(t, err)
		assert.Equal(t, s, after, "the session is as it was")
		recent, err := st.RecentRetrievals(ctx, "acme", 10)
		require.NoError(t, err)
		assert.Empty(t, recent, "no retrieval records: they went in the same batch")
		stats, err := st.IntentRuleStats(ctx, "acme", time.Now().Add(-time.Hour), time.Now().Add(time.Hour), domain.PageRequest{Limit: 10})
		require.NoError(t, err)
		assert.Zero(t, stats.Evaluated, "no intent evaluation")
	})
	t.Run("a rule deleted while its hit is written does not cost the reply", func(t *testing.T) {
		// The race: the hit's insert saw the rule, a concurrent delete
		// committed, and the foreign key check fails the batch. A trigger
		// makes the first insert fail as that check does (a sequence,
		// which a rollback does not undo, counts the attempts).
		rule := e.create(t, "acme", "/admin/intent-rules", map[string]any{"name": "Refunds", "keywords": []string{"refund"},
			"responseType": "fixed", "fixedText": "Refunds take 3 days."})
		_, err := e.db.Exec(ctx, `CREATE SEQUENCE hit_attempts;
CREATE FUNCTION fail_first_hit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF nextval('hit_attempts') = 1 THEN
		RAISE EXCEPTION 'the rule was deleted meanwhile'
			USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'intent_hits_tenant_id_rule_id_fkey';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER fail_first_hit BEFORE INSERT ON intent_hits FOR EACH ROW EXECUTE FUNCTION fail_first_hit();`)
		require.NoError(t, err)
		t.Cleanup(func() {
			_, err := e.db.Exec(context.Background(), `DROP TRIGGER fail_first_hit ON intent_hits;
DROP FUNCTION fail_first_hit; DROP SEQUENCE hit_attempts;`)
			assert.NoError(t, err)
		})

		s := newChatSession(t, e, "acme")
		turn := chatRagTurn(s, "Refunds take 3 days.")
		turn.Records = domain.TurnRecords{IntentEvaluated: true, IntentHit: &domain.IntentHit{
			TenantID: "acme", RuleID: rule, SessionID: s.ID, MessageID: turn.Reply.ID, Keywords: []string{"refund"}, At: time.Now(),
		}}
		require.NoError(t, st.SaveTurn(ctx, turn))
		var attempts int64
		require.NoError(t, e.db.QueryRow(ctx, "SELECT last_value FROM hit_attempts").Scan(&attempts))
		assert.EqualValues(t, 2, attempts, "the batch was sent again")
		_, err = st.GetMessage(ctx, "acme", s.ID, turn.Reply.ID)
		assert.NoError(t, err, "the reply is stored")
		var hits int
		require.NoError(t, e.db.QueryRow(ctx, "SELECT count(*) FROM intent_hits WHERE rule_id = $1", rule).Scan(&hits))
		assert.Equal(t, 1, hits, "the hit once: the rule is still there")

		// The same race on an outcome recorded alone (a fixed reply's
		// rule): counted, not refused as bad input.
		_, err = e.db.Exec(ctx, "SELECT setval('hit_attempts', 1, false)")
		require.NoError(t, err)
		require.NoError(t, st.RecordIntentOutcome(ctx, "acme", &domain.IntentHit{
			TenantID: "acme", RuleID: rule, SessionID: s.ID, MessageID: turn.Reply.ID, Keywords: []string{"refund"}, At: time.Now(),
		}, time.Now()))
		require.NoError(t, e.db.QueryRow(ctx, "SELECT last_value FROM hit_attempts").Scan(&attempts))
		assert.EqualValues(t, 2, attempts, "the outcome's batch was sent again")
		require.NoError(t, e.db.QueryRow(ctx, "SELECT count(*) FROM intent_hits WHERE rule_id = $1", rule).Scan(&hits))
		assert.Equal(t, 2, hits)
	})
	t.Run("a value that cannot be stored fails before anything is written", func(t *testing.T) {
		s := newChatSession(t, e, "acme")
		turn := chatRagTurn(s, "never stored")
		turn.ToolTraces[0].Input = map[string]any{"bad": make(chan int)}
		require.Error(t, st.SaveTurn(ctx, turn))
		after, err := st.GetSession(ctx, "acme", s.ID)
		require.NoError(t, err)
		assert.Equal(t, 0, after.MessageCount)
	})
	t.Run("a turn for a session of another tenant is not found and stores nothing", func(t *testing.T) {
		s := newChatSession(t, e, "acme")
		turn := chatRagTurn(s, "wrong tenant")
		turn.Session.TenantID = "globex"
		newChatSession(t, e, "globex")
		err := st.SaveTurn(ctx, turn)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
		_, err = st.GetMessage(ctx, "acme", s.ID, turn.Reply.ID)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	})
	t.Run("recent messages are the newest n, oldest first", func(t *testing.T) {
		s := newChatSession(t, e, "acme")
		e.storeChatExchanges(t, "acme", s.ID, 3)
		recent, err := st.RecentMessages(ctx, "acme", s.ID, 3)
		require.NoError(t, err)
		var got []string
		for _, m := range recent {
			got = append(got, m.Content)
		}
		assert.Equal(t, []string{"answer B", "question C", "answer C"}, got)
		_, err = st.RecentMessages(ctx, "globex", s.ID, 3)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	})
}

func TestChatStoreFlowTimeouts(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	st := e.app.store
	now := time.Now().UTC().Truncate(time.Microsecond)
	withFlow := func(tenant domain.TenantID, deadline *time.Time) domain.ChatSession {
		s := newChatSession(t, e, tenant)
		s.FlowState = []byte(`{"FlowID": "flow_1", "StepNo": 2, "Waiting": true, "UpdatedAt": "` + now.Format(time.RFC3339Nano) + `"}`)
		s.FlowDeadline = deadline
		require.NoError(t, st.SaveTurn(ctx, domain.Turn{Session: s}))
		s, err := st.GetSession(ctx, tenant, s.ID)
		require.NoError(t, err)
		return s
	}
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	late := withFlow("acme", at(-time.Minute))
	later := withFlow("globex", at(-time.Second))
	withFlow("acme", at(time.Minute)) // not due yet
	withFlow("acme", nil)             // waits with no timeout
	latest := withFlow("acme", at(-time.Millisecond))

	t.Run("due flows of every tenant come by deadline, up to the limit", func(t *testing.T) {
		due, err := st.DueFlows(ctx, now, 10)
		require.NoError(t, err)
		var ids []string
		for _, s := range due {
			ids = append(ids, s.ID)
		}
		assert.Equal(t, []string{late.ID, later.ID, latest.ID}, ids)
		due, err = st.DueFlows(ctx, now, 2)
		require.NoError(t, err)
		assert.Len(t, due, 2)
	})
	t.Run("a timeout is stored once: the second sweeper's compare-and-set fails", func(t *testing.T) {
		expected := late.FlowState
		fired := chatRagTurn(late, "Are you still there?")
		fired.Session.FlowState = []byte(`{"FlowID":"flow_1","StepNo":3,"Waiting":true}`)
		fired.Session.FlowDeadline = nil
		ok, err := st.SaveFlowTimeout(ctx, expected, fired)
		require.NoError(t, err)
		assert.True(t, ok)

		again := chatRagTurn(late, "Are you still there? (twice)")
		ok, err = st.SaveFlowTimeout(ctx, expected, again)
		require.NoError(t, err)
		assert.False(t, ok)

		s, err := st.GetSession(ctx, "acme", late.ID)
		require.NoError(t, err)
		assert.Equal(t, 1, s.MessageCount, "only the first timeout's reply counts")
		assert.JSONEq(t, `{"FlowID":"flow_1","StepNo":3,"Waiting":true}`, string(s.FlowState))
		assert.Nil(t, s.FlowDeadline)
		_, err = st.GetMessage(ctx, "acme", late.ID, again.Reply.ID)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "the losing reply is not stored")
		traces, err := st.ListToolTraces(ctx, "acme", late.ID, domain.PageRequest{Limit: 10})
		require.NoError(t, err)
		assert.Len(t, traces.Items, 2, "only the first timeout's traces")

		due, err := st.DueFlows(ctx, now, 10)
		require.NoError(t, err)
		for _, d := range due {
			assert.NotEqual(t, late.ID, d.ID, "a fired timeout is no longer due")
		}
	})
	t.Run("the comparison is on the JSON value, not its spelling", func(t *testing.T) {
		respelled := []byte(`{"UpdatedAt":"` + now.Format(time.RFC3339Nano) + `","Waiting":true,"StepNo":2,"FlowID":"flow_1"}`)
		fired := chatRagTurn(later, "Timed out.")
		fired.Session.FlowState, fired.Session.FlowDeadline = nil, nil
		ok, err := st.SaveFlowTimeout(ctx, respelled, fired)
		require.NoError(t, err)
		assert.True(t, ok)
		s, err := st.GetSession(ctx, "globex", later.ID)
		require.NoError(t, err)
		assert.Nil(t, s.FlowState)
	})
	t.Run("a state a message changed in between makes the timeout lose", func(t *testing.T) {
		expected := latest.FlowState
		answered := latest
		answered.FlowState = []byte(`{"FlowID":"flow_1","StepNo":2,"Waiting":false}`)
		answered.FlowDeadline = nil
		require.NoError(t, st.SaveTurn(ctx, domain.Turn{Session: answered}))
		ok, err := st.SaveFlowTimeout(ctx, expected, chatRagTurn(latest, "too late"))
		require.NoError(t, err)
		assert.False(t, ok)
	})
	t.Run("another tenant's session never matches", func(t *testing.T) {
		s := withFlow("acme", at(-time.Hour))
		turn := chatRagTurn(s, "x")
		turn.Session.TenantID = "globex"
		ok, err := st.SaveFlowTimeout(ctx, s.FlowState, turn)
		require.NoError(t, err)
		assert.False(t, ok)
	})
}

func TestChatStorePurgeReplyEvents(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	st := e.app.store
	now := time.Now().UTC()
	var oldSession string
	store := func(tenant domain.TenantID, at time.Time) string {
		s := newChatSession(t, e, tenant)
		if oldSession == "" {
			oldSession = s.ID
		}
		turn := chatRagTurn(s, "answer")
		for i := range turn.Events {
			turn.Events[i].At = at
		}
		require.NoError(t, st.SaveTurn(ctx, turn))
		return turn.Reply.ID
	}
	oldA := store("acme", now.Add(-10*time.Minute))
	oldB := store("globex", now.Add(-6*time.Minute))
	fresh := store("acme", now.Add(-time.Minute))

	n, err := st.PurgeReplyEvents(ctx, now.Add(-5*time.Minute))
	require.NoError(t, err)
	assert.EqualValues(t, 6, n, "the old events of both tenants")
	for _, m := range []struct {
		tenant domain.TenantID
		id     string
		left   int
	}{{"acme", oldA, 0}, {"globex", oldB, 0}, {"acme", fresh, 3}} {
		events, err := st.ReplyEvents(ctx, m.tenant, m.id, 0)
		require.NoError(t, err)
		assert.Len(t, events, m.left, m.id)
	}
	_, err = st.GetMessage(ctx, "acme", oldSession, oldA)
	assert.NoError(t, err, "the purge drops the events, not the message")
}

// turnRecords are the monitoring records of a message that ran the intent
// stage and two retrievals (its own words, then with the question before).
func turnRecords(tenant domain.TenantID) domain.TurnRecords {
	now := time.Now().UTC()
	return domain.TurnRecords{IntentEvaluated: true, IntentAt: now, Retrievals: []domain.RetrievalEvent{
		{TenantID: tenant, Strategy: domain.RetrievalStrategy{Mode: domain.ModeHybrid, TopK: 5}, Hits: 0, Transferred: true, At: now},
		{TenantID: tenant, Strategy: domain.RetrievalStrategy{Mode: domain.ModeHybrid, TopK: 5}, Hits: 3, TopScore: 0.8, At: now},
	}}
}
