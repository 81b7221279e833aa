package turn

import (
	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// draft is the reply as far as the stages have made it, and the session's
// state after them. Each stage's outcome holds the draft it leaves.
type draft struct {
	// reply holds what the stages decide: the answer and its kind, the
	// hand-off, sources, flow, and the monitoring facts of the prompt,
	// the model and the flow. The ids, the trace, the tool calls and the
	// guard hits join it at the end (msg.reply).
	reply Reply
	// slots are the session's slots; a stage that fills one returns a
	// new map.
	slots map[string]string
	// flow is the session's flow instance; nil when none runs.
	flow *flow.State
	// notice is what a waiting customer is told by this reply
	// (domain.Notice*); silent: a person has the session and the bot
	// says nothing, so no reply is stored.
	notice string
	silent bool
	// announce: the customer's message goes to the session's watchers
	// (the agent) on every replica, with the turn.
	announce bool
}

// handOff makes d a hand-off for reason that says text (the tenant's
// hand-off message, in the customer's language, when text is empty).
func (m msg) handOff(d draft, reason, text string) draft {
	d.reply.ResponseType = ResponseTransfer
	d.reply.ShouldTransfer = true
	d.reply.TransferReason = &reason
	if text == "" {
		text = m.handoffMessage()
	}
	d.reply.Answer = text
	m.trace(toolHandoff, map[string]any{"reason": reason}, "handed over: "+reason, 0, nil)
	return d
}

// handoffMessage is the tenant's hand-off text in the language of the
// customer's message, or the built-in one of that language.
func (m msg) handoffMessage() string {
	lang := analysis.Language(m.in.Message)
	s, err := m.r.d.Settings.GetSettings(m.ctx, m.in.Tenant)
	if err != nil {
		// The hand-off must reach the customer even when the settings
		// cannot be read; the built-in text says the same.
		return domain.TenantSettings{}.HandoffMessage(lang)
	}
	return s.HandoffMessage(lang)
}

// handedOff ends the answer path with retrieval's or the generation's
// hand-off: the reply says so, replacing what a stream released (reset),
// and cites nothing.
func (m msg) handedOff(d draft, found answer.Outcome, reset bool) final {
	d = d.scored(found)
	d = m.handOff(d, found.Transfer.Code, "")
	return final{draft: d, end: ending{delta: true, reset: reset, sources: true}}
}

// scored is d with the numbers of what was found and generated: the
// retrieval's confidence, and the model's name, tokens and retries (none
// when no model ran).
func (d draft) scored(found answer.Outcome) draft {
	d.reply.Confidence = ptr(found.Retrieval.Decision.Confidence)
	d.reply.Monitoring.Model = found.Model
	d.reply.Monitoring.TokensIn, d.reply.Monitoring.TokensOut = found.PromptTokens, found.CompletionTokens
	d.reply.Monitoring.Retries = found.Retries
	return d
}

// applyVerdict makes an output verdict's hand-off the reply's, and
// returns the output guard's outcome.
func (m msg) applyVerdict(d draft, v guard.Verdict) (draft, string) {
	switch {
	case v.Transfer:
		return m.handOff(d, v.Reason, v.Text), "transfer"
	case v.Blocked:
		return d, "blocked"
	case len(v.Hits) > 0:
		return d, "masked"
	}
	return d, "pass"
}
