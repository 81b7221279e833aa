package turn

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// handedOver is a session in hand-off state st, requested ago before the
// clock, whose customer was told notice.
func handedOver(st domain.HandoffState, ago time.Duration, notice string) domain.ChatSession {
	at := clock().Add(-ago)
	return domain.ChatSession{ID: sessionID, TenantID: tenantID, Channel: "web", Handoff: domain.Handoff{
		State: st, Reason: ptr("no_evidence"), Language: ptr("en"), RequestedAt: &at, Notice: notice}}
}

// TestHandoffGate: while a person has or awaits the session the bot says
// only the waiting text once and the fallback text once; a customer who
// asks for a person is handed over before any other stage runs.
func TestHandoffGate(t *testing.T) {
	refundQ := "How long do refunds take?"
	tenantTexts := fakeSettings{s: domain.TenantSettings{Handoff: domain.HandoffTexts{
		WaitingEN: ptr("Hold on, a colleague is coming."), Wait: ptr(time.Minute)}}}
	for _, tc := range []struct {
		name     string
		setup    setup
		message  string
		answer   string
		outcome  string
		silent   bool
		state    domain.HandoffState
		notice   string
		requests bool // the turn puts the session in the queue
	}{
		{name: "a bot session answers as before", setup: setup{find: refunds, gen: refundAnswer()}, message: refundQ,
			answer: refundText, outcome: outcomeBot, state: domain.HandoffBot},
		{name: "asking for a human hands over", message: "Can I talk to a human please?", answer: domain.DefaultHandoffMessageEN,
			outcome: outcomeBot, state: domain.HandoffWaiting, requests: true},
		{name: "转人工 hands over in Chinese", message: "转人工", answer: domain.DefaultHandoffMessageZH,
			outcome: outcomeBot, state: domain.HandoffWaiting, requests: true},
		{name: "a tenant's rule for people comes first", setup: setup{rules: []domain.IntentRule{fixedRule("human", "Call us on 555-0100.")}},
			message: "I want to talk to a human", answer: "Call us on 555-0100.", outcome: outcomeBot, state: domain.HandoffBot},
		{name: "a retrieval hand-off puts the session in the queue", message: "Do you sell gift cards?",
			answer: domain.DefaultHandoffMessageEN, outcome: outcomeBot, state: domain.HandoffWaiting, requests: true},
		{name: "a resolved session asking again waits again", setup: setup{session: handedOver(domain.HandoffResolved, time.Hour, "")},
			message: "I need a real person", answer: domain.DefaultHandoffMessageEN, outcome: outcomeBot, state: domain.HandoffWaiting, requests: true},
		{name: "the first message while waiting gets the waiting text", setup: setup{session: handedOver(domain.HandoffWaiting, time.Second, ""), find: refunds},
			message: refundQ, answer: domain.DefaultWaitingMessageEN, outcome: outcomeWithPerson, state: domain.HandoffWaiting, notice: domain.NoticeWaiting},
		{name: "the tenant's waiting text", setup: setup{session: handedOver(domain.HandoffWaiting, time.Second, ""), settings: tenantTexts},
			message: refundQ, answer: "Hold on, a colleague is coming.", outcome: outcomeWithPerson, state: domain.HandoffWaiting, notice: domain.NoticeWaiting},
		{name: "later messages while waiting are not answered", setup: setup{session: handedOver(domain.HandoffWaiting, time.Second, domain.NoticeWaiting), find: refunds},
			message: refundQ, outcome: outcomeWithPerson, silent: true, state: domain.HandoffWaiting},
		{name: "after the wait the fallback text, once", setup: setup{session: handedOver(domain.HandoffWaiting, 2*time.Minute, domain.NoticeWaiting), settings: tenantTexts},
			message: refundQ, answer: domain.DefaultFallbackMessageEN, outcome: outcomeWithPerson, state: domain.HandoffWaiting, notice: domain.NoticeFallback},
		{name: "the fallback text in the customer's language", setup: setup{session: func() domain.ChatSession {
			s := handedOver(domain.HandoffWaiting, time.Hour, "")
			s.Handoff.Language = ptr("zh")
			return s
		}()}, message: "还在吗", answer: domain.DefaultFallbackMessageZH, outcome: outcomeWithPerson, state: domain.HandoffWaiting, notice: domain.NoticeFallback},
		{name: "after the fallback nothing more", setup: setup{session: handedOver(domain.HandoffWaiting, time.Hour, domain.NoticeFallback)},
			message: refundQ, outcome: outcomeWithPerson, silent: true, state: domain.HandoffWaiting},
		{name: "with an agent the bot is silent", setup: setup{session: handedOver(domain.HandoffWithAgent, time.Hour, domain.NoticeWaiting), find: refunds},
			message: "talk to a human", outcome: outcomeWithPerson, silent: true, state: domain.HandoffWithAgent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				h := newHarness(tc.setup)
				sub := h.runner.Observer().Subscribe(tenantID, sessionID)
				o := h.send(t, request{message: tc.message, stream: stream})
				sub.Close()
				require.Empty(t, o.Err)
				r := o.Reply
				assert.Equal(t, tc.answer, r.Answer)
				assert.Equal(t, tc.silent, r.Silent)
				assert.Equal(t, tc.state, r.HandoffState)
				assert.Equal(t, StageHandoff, r.Monitoring.Stages[2].Stage)
				assert.Equal(t, tc.outcome, r.Monitoring.Stages[2].Outcome)
				require.Len(t, o.Stored, 1)
				stored := string(o.Stored[0])
				assert.Equal(t, tc.requests, strings.Contains(stored, `"Handoff":{"Reason":`), "the hand-off request is stored with the turn")
				assert.Contains(t, stored, `"Notice":"`+tc.notice+`"`)
				if tc.silent {
					assert.Contains(t, stored, `"Reply":{"ID":""`, "a silent turn stores no reply")
				}
				if tc.outcome == outcomeWithPerson {
					assert.Empty(t, h.answerer.finds, "the bot does not look for an answer")
					var msgs []string
					for ev := range sub.Events {
						if ev.Message != nil {
							msgs = append(msgs, ev.Message.Content)
						}
					}
					assert.Equal(t, []string{tc.message}, msgs, "the agent's watchers get the customer's message")
				}
			}
		})
	}
}

func TestAsksForPerson(t *testing.T) {
	for msg, want := range map[string]bool{
		"I want to talk to a human":             true,
		"Can I speak with an agent?":            true,
		"let me chat to a real person":          true,
		"Is there a live agent?":                true,
		"human agent please":                    true,
		"转人工":                                   true,
		"我要人工客服":                                true,
		"What do your agents earn?":             false,
		"How long do refunds take?":             false,
		"Is a person allowed two returns?":      false,
		"我想问一下退款":                               false,
		"the human body is mostly water, right": false,
	} {
		assert.Equal(t, want, asksForPerson(msg), msg)
	}
}
