package turn

import (
	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// ReasonCustomerRequest is the transfer reason of a customer who asked for
// a person ("talk to a human", "转人工").
const ReasonCustomerRequest = "customer_request"

// Outcomes of the hand-off stage.
const (
	outcomeBot        = "bot"
	outcomeWithPerson = "with_person"
)

// handoff is the "with a person" gate, before every stage that could
// answer: while a person has or awaits the session the bot stays silent
// (the customer's message, stored by stage 2, is the agent's to read), but
// for the waiting text once and the fallback text once the wait ran out.
// (A customer who asks for a person is handed over by the intent stage,
// after the tenant's own rules.)
func (m msg) handoff(d draft) gateOutcome {
	done := m.stage(StageHandoff)
	h := m.ses.session.Handoff
	if h.State.WithPerson() {
		d = m.withPerson(d, h)
		done(outcomeWithPerson, map[string]any{"state": string(h.State), "notice": d.notice})
		return gateOutcome{draft: d, answered: true}
	}
	done(outcomeBot, nil)
	return gateOutcome{draft: d}
}

// withPerson is the reply of a session a person has or awaits: the
// waiting or fallback text when one is due, else nothing (silent).
func (m msg) withPerson(d draft, h domain.Handoff) draft {
	d.reply.ResponseType = ResponseTransfer
	d.reply.ShouldTransfer = true
	d.reply.TransferReason = h.Reason
	lang := deref(h.Language)
	if lang == "" {
		lang = analysis.Language(m.in.Message)
	}
	texts := m.handoffTexts()
	switch notice := m.noticeDue(h, texts); notice {
	case domain.NoticeWaiting:
		d.reply.Answer, d.notice = texts.WaitingMessage(lang), notice
	case domain.NoticeFallback:
		d.reply.Answer, d.notice = texts.FallbackMessage(lang), notice
	default:
		d.silent = true
	}
	if !m.dry && !m.r.d.Broadcast {
		m.r.d.Observer.PublishMessage(m.ses.user)
	}
	d.announce = !m.dry
	return d
}

// noticeDue is what the waiting customer is to be told now: the waiting
// text once, then the fallback text once when no agent claimed the
// session within the tenant's wait; nothing while an agent has it.
func (m msg) noticeDue(h domain.Handoff, t domain.HandoffTexts) string {
	if h.State != domain.HandoffWaiting {
		return domain.NoticeNone
	}
	overdue := h.RequestedAt != nil && m.now().Sub(*h.RequestedAt) >= t.WaitLimit()
	switch {
	case overdue && h.Notice != domain.NoticeFallback:
		return domain.NoticeFallback
	case h.Notice == domain.NoticeNone && !overdue:
		return domain.NoticeWaiting
	}
	return domain.NoticeNone
}

// handoffTexts are the tenant's waiting and fallback texts (the built-in
// ones when the settings cannot be read: the customer must hear something).
func (m msg) handoffTexts() domain.HandoffTexts {
	s, err := m.r.d.Settings.GetSettings(m.ctx, m.in.Tenant)
	if err != nil {
		return domain.HandoffTexts{}
	}
	return s.Handoff
}

// handoffAfter is the session's hand-off state once the reply is stored:
// a hand-off puts a bot session in the queue.
func (m msg) handoffAfter(r Reply) domain.HandoffState {
	st := m.ses.session.Handoff.State
	if st == "" {
		st = domain.HandoffBot
	}
	if r.ShouldTransfer && !st.WithPerson() {
		return domain.HandoffWaiting
	}
	return st
}

// handoffRequest is what the turn stores to put the session in the
// agents' queue (nil when it need not).
func (m msg) handoffRequest(r Reply) *domain.HandoffRequest {
	if !r.ShouldTransfer || m.ses.session.Handoff.State.WithPerson() {
		return nil
	}
	return &domain.HandoffRequest{Reason: deref(r.TransferReason), Language: analysis.Language(m.in.Message), At: m.now().UTC()}
}
