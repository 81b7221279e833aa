package turn

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// traceOf is the outcomes of stages 3–10 of a reply, as expect.trace
// writes them.
func traceOf(r Reply) string {
	var b []string
	for _, st := range r.Monitoring.Stages {
		if st.Stage != StageAuth && st.Stage != StageSession {
			b = append(b, st.Stage+"="+st.Outcome)
		}
	}
	return strings.Join(b, " ")
}

func checkReply(t *testing.T, want expect, o outcome) {
	t.Helper()
	if want.err != "" {
		assert.Equal(t, want.err, o.Code, o.Err)
		assert.Empty(t, o.Stored, "a failed message stores no reply")
		return
	}
	require.Empty(t, o.Err)
	r := o.Reply
	assert.Equal(t, want.responseType, r.ResponseType)
	assert.Equal(t, want.answer, r.Answer)
	assert.Equal(t, want.trace, traceOf(r))
	status := want.status
	if status == "" {
		status = domain.MessageComplete
	}
	assert.Equal(t, status, r.Status)
	assert.Equal(t, want.reason != "", r.ShouldTransfer)
	if want.reason != "" {
		require.NotNil(t, r.TransferReason)
		assert.Equal(t, want.reason, *r.TransferReason)
	} else {
		assert.Nil(t, r.TransferReason)
	}
	if strings.HasPrefix(want.trace, StagePersist) {
		return // ended before stage 3, after its client went away
	}
	assert.Len(t, r.Monitoring.Stages, len(Stages()), "every trace names all ten stages")
	for i, st := range r.Monitoring.Stages[:2] {
		assert.Equal(t, Stages()[i], st.Stage)
	}
	assert.Equal(t, StagePersist, r.Monitoring.Stages[len(r.Monitoring.Stages)-1].Stage)
}

// TestHandle sends each scenario's message as JSON (the scenarios a
// stream's client decides, as a stream) and checks the reply.
func TestHandle(t *testing.T) {
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			checkReply(t, sc.want, newHarness(sc.setup).send(t, sc.request))
		})
	}
	for _, sc := range streamOnly() {
		t.Run(sc.name, func(t *testing.T) {
			rq := sc.request
			rq.stream = true
			checkReply(t, sc.want, newHarness(sc.setup).send(t, rq))
		})
	}
}

// comparable is a reply as both ways of sending it must agree on: the
// made-up ids numbered, the measured durations zeroed, and the facts
// only a stream has (how many events, whether it streamed) left out.
func comparable(t *testing.T, r Reply) string {
	t.Helper()
	r.Monitoring.Stages = append([]domain.StageTrace(nil), r.Monitoring.Stages...)
	for i, st := range r.Monitoring.Stages {
		if st.Stage == StageGeneration || st.Stage == StagePersist {
			d := map[string]any{}
			for k, v := range st.Detail {
				if k != "streamed" && k != "events" {
					d[k] = v
				}
			}
			r.Monitoring.Stages[i].Detail = d
		}
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	return normalize(t, string(b))
}

// TestStreamAndJSONGiveOneReply: a stream ends in the reply JSON gets, and
// its deltas (after the last reset) spell its answer.
func TestStreamAndJSONGiveOneReply(t *testing.T) {
	for _, sc := range scenarios() {
		if sc.want.status == domain.MessageInterrupted || sc.want.err != "" {
			continue // a stream keeps what it released, JSON has none
		}
		t.Run(sc.name, func(t *testing.T) {
			plain := newHarness(sc.setup).send(t, sc.request)
			rq := sc.request
			rq.stream = true
			streamed := newHarness(sc.setup).send(t, rq)
			require.Empty(t, plain.Err)
			require.Empty(t, streamed.Err)
			assert.Equal(t, comparable(t, plain.Reply), comparable(t, streamed.Reply))
			text, names := spelled(t, streamed.Sent)
			assert.Equal(t, plain.Reply.Answer, text)
			assert.Equal(t, EventMeta, names[0])
			assert.Equal(t, EventDone, names[len(names)-1])
		})
	}
}

// spelled is the answer a client shows from a stream's deltas, and the
// events' names.
func spelled(t *testing.T, sent []sent) (string, []string) {
	t.Helper()
	var text strings.Builder
	var names []string
	for i, s := range sent {
		names = append(names, s.Event)
		assert.Equal(t, EventID(strings.Split(s.ID, ":")[0], i+1), s.ID, "ids count the events")
		if s.Event != EventDelta {
			continue
		}
		var d struct {
			Text  string
			Reset bool
		}
		require.NoError(t, json.Unmarshal(s.Data, &d))
		if d.Reset {
			text.Reset()
		}
		text.WriteString(d.Text)
	}
	return text.String(), names
}

func TestAFailingStageEndsTheStreamWithAnError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  setup
		code   domain.ErrorCode
		detail string
	}{
		{"platform failure", setup{guardErr: errStore}, domain.CodeInternal, "The reply failed; quote the trace id when reporting it."},
		{"coded failure", setup{rulesErr: domain.Errorf(domain.CodeUnavailable, "Rules are loading.")}, domain.CodeUnavailable, "Rules are loading."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newHarness(tc.setup).send(t, request{message: "How long do refunds take?", stream: true})
			assert.Equal(t, tc.code, o.Code)
			_, names := spelled(t, o.Sent)
			assert.Equal(t, []string{EventMeta, EventError}, names)
			assert.JSONEq(t, `{"code":"`+string(tc.code)+`","detail":"`+tc.detail+`"}`, string(o.Sent[1].Data))
			assert.Empty(t, o.Stored)
		})
	}
	o := newHarness(setup{session: domain.ChatSession{ID: "ses_other", TenantID: tenantID}}).
		send(t, request{message: "How long do refunds take?", stream: true})
	assert.Equal(t, domain.CodeNotFound, o.Code)
	assert.Empty(t, o.Sent, "an unknown session fails before the stream opens")
}

func TestMessagesOutOfBoundsAreRefusedBeforeAnything(t *testing.T) {
	for name, msg := range map[string]string{"blank": " \n\t", "too long": strings.Repeat("é", MaxMessageRunes+1)} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(setup{})
			o := h.send(t, request{message: msg, stream: true})
			assert.Equal(t, domain.CodeValidation, o.Code)
			assert.Empty(t, o.Sent, "not even the meta event")
			assert.Zero(t, o.Opened, "the message is not stored")
		})
	}
	o := newHarness(setup{}).send(t, request{message: strings.Repeat("é", MaxMessageRunes)})
	assert.Empty(t, o.Err, "4000 characters are allowed")
}

func TestPersistenceFailure(t *testing.T) {
	sc := setup{find: refunds, gen: refundAnswer(), saveErr: errStore}
	t.Run("json", func(t *testing.T) {
		o := newHarness(sc).send(t, request{message: "How long do refunds take?"})
		assert.Contains(t, o.Err, string(errStore))
		assert.Equal(t, domain.CodeInternal, o.Code)
		for _, ev := range o.Published {
			assert.NotEqual(t, StagePersist, ev.Stage.Stage, "persist is not published")
		}
	})
	t.Run("stream", func(t *testing.T) {
		o := newHarness(sc).send(t, request{message: "How long do refunds take?", stream: true})
		assert.Equal(t, domain.CodeInternal, o.Code)
		_, names := spelled(t, o.Sent)
		assert.Equal(t, EventDone, names[len(names)-1], "the client had the whole reply before storing it failed")
		assert.True(t, o.Held, "its events stay in memory for a resume")
	})
}

func TestCancellation(t *testing.T) {
	hang := setup{find: refunds, gen: generation{deltas: []string{"Refunds are paid within 5 working days "}, hang: true}}
	cancel := func(cancel context.CancelFunc, _ *Runner) { cancel() }
	stop := func(_ context.CancelFunc, r *Runner) { r.Interrupt() }
	for _, tc := range []struct {
		name   string
		during func(context.CancelFunc, *Runner)
		stream bool
		detail string
		answer string
	}{
		{"request cancelled, json", cancel, false, "", ""},
		{"request cancelled, stream", cancel, true, "The client went away", "Refunds are paid within 5 working days "},
		{"service stopping, json", stop, false, "", ""},
		{"service stopping, stream", stop, true, "Send the message again", "Refunds are paid within 5 working days "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newHarness(hang).send(t, request{message: "How long do refunds take?", stream: tc.stream, during: tc.during})
			require.Empty(t, o.Err)
			assert.Equal(t, domain.MessageInterrupted, o.Reply.Status)
			assert.Equal(t, tc.answer, o.Reply.Answer, "stored as far as it got, the held-back tail checked and kept")
			assert.Len(t, o.Stored, 1, "stored although the request ended")
			if tc.stream {
				last := o.Sent[len(o.Sent)-1]
				assert.Equal(t, EventError, last.Event)
				assert.Contains(t, string(last.Data), tc.detail)
				assert.Contains(t, string(last.Data), `"interrupted"`)
			}
		})
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	for _, sc := range scenarios() {
		if sc.dry == nil {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			h := newHarness(sc.setup)
			o := h.send(t, sc.request)
			assert.Zero(t, o.Opened, "the message is not stored")
			assert.Empty(t, o.Stored)
			assert.Empty(t, o.Published, "nothing is published")
			for _, f := range o.Finds {
				assert.True(t, f.DryRun)
			}
			assert.NotNil(t, o.Reply.Slots, "the slots the message left are returned")
		})
	}
	o := newHarness(setup{}).send(t, request{message: "A-123", dry: &DryRun{Slots: map[string]string{"lang": "en"},
		FlowState: inFlow(returnFlow(), nil).FlowState}})
	assert.Equal(t, ResponseTransfer, o.Reply.ResponseType, "the flow of a dry run's state is gone: the knowledge hands off")
	assert.Equal(t, map[string]string{"lang": "en"}, o.Reply.Slots)
}

func TestStoredTurn(t *testing.T) {
	t.Run("a flow step stores the flow's new state and the filled slot", func(t *testing.T) {
		h := newHarness(setup{session: inFlow(returnFlow(), nil), flows: fakeFlows{"flow_return": {flow: returnFlow()}}})
		o := h.send(t, request{message: "A-123"})
		var turn storedTurn
		require.Len(t, o.Stored, 1)
		require.NoError(t, json.Unmarshal(o.Stored[0], &turn))
		assert.Nil(t, turn.Session.FlowState, "the flow ended")
		assert.Equal(t, map[string]string{"order": "A-123"}, turn.Session.Slots)
		assert.Equal(t, map[string]string{"order": "A-123"}, o.Reply.Slots)
		kinds := []domain.FlowEventKind{}
		for _, ev := range turn.Records.FlowEvents {
			kinds = append(kinds, ev.Kind)
		}
		assert.Equal(t, []domain.FlowEventKind{domain.FlowStep, domain.FlowCompleted}, kinds)
		require.Len(t, turn.ToolTraces, 1)
		assert.Equal(t, toolSlotFill, turn.ToolTraces[0].Tool)
	})
	t.Run("a hand-off records its tool call and the retrieval", func(t *testing.T) {
		o := newHarness(setup{}).send(t, request{message: "Do you sell gift cards?"})
		var turn storedTurn
		require.NoError(t, json.Unmarshal(o.Stored[0], &turn))
		var tools []string
		for _, tt := range turn.ToolTraces {
			tools = append(tools, tt.Tool)
		}
		assert.Equal(t, []string{toolKBSearch, toolHandoff}, tools)
		assert.Len(t, turn.Records.Retrievals, 1)
		assert.True(t, turn.Records.IntentEvaluated)
	})
	t.Run("an intent hit is recorded with the rule", func(t *testing.T) {
		o := newHarness(setup{rules: []domain.IntentRule{fixedRule("opening hours", "We open at 9.")}}).
			send(t, request{message: "What are your opening hours?"})
		var turn storedTurn
		require.NoError(t, json.Unmarshal(o.Stored[0], &turn))
		require.NotNil(t, turn.Records.IntentHit)
		assert.Equal(t, "rule_hours", turn.Records.IntentHit.RuleID)
		require.NotNil(t, o.Reply.Monitoring.RuleID)
		assert.Equal(t, "rule_hours", *o.Reply.Monitoring.RuleID)
	})
	t.Run("guard hits are recorded on both sides", func(t *testing.T) {
		o := newHarness(setup{find: refunds, guard: words(), gen: generation{deltas: []string{"Refunds are cheap [1]."}}}).
			send(t, request{message: "How long do refunds take?"})
		require.Len(t, o.Reply.Monitoring.GuardHits, 1)
		assert.Equal(t, domain.GuardOutput, o.Reply.Monitoring.GuardHits[0].Stage)
		assert.Equal(t, "fw_cheap", o.Reply.Monitoring.GuardHits[0].RefID)
	})
}

func TestObserverAndTelemetrySeeEachStage(t *testing.T) {
	o := newHarness(setup{find: refunds, gen: refundAnswer()}).send(t, request{message: "How long do refunds take?"})
	var published []string
	for _, ev := range o.Published {
		published = append(published, ev.Stage.Stage)
		assert.Equal(t, o.Reply.MessageID, ev.MessageID)
	}
	assert.Equal(t, Stages()[1:], published, "the session's watchers see every stage after auth (which ran before the session was known)")
	assert.Len(t, o.Observed, len(Stages()))
}
