package turn

import "github.com/cs-assistant/assistant/domain"

// gateOutcome is what the stages before retrieval (the input guard, the
// session's flow, the intent rules) decided.
type gateOutcome struct {
	draft
	// answered: the reply is decided (a hand-off, a flow step, a fixed
	// text) and retrieval does not run.
	answered bool
	// kbIDs are the knowledge bases a rag rule narrows retrieval to; nil
	// is all of them.
	kbIDs []string
}

// inputGuard checks the message for high risk; a hit hands over at once
// with the safe text.
func (m msg) inputGuard(d draft) gateOutcome {
	done := m.stage(StageInputGuard)
	v := m.guard.CheckInput(m.in.Message)
	m.guardHits(domain.GuardInput, v.Hits)
	if !v.Transfer {
		done("pass", nil)
		return gateOutcome{draft: d}
	}
	d = m.handOff(d, v.Reason, v.Text)
	done("transfer", map[string]any{"reason": v.Reason, "hits": len(v.Hits)})
	return gateOutcome{draft: d, answered: true}
}
