package flow

import "github.com/cs-assistant/assistant/domain"

// SlotRuleOf is the SlotRule of a tenant's slot definitions: a defined
// slot's value is normalised as its definition reads it, or refused with
// the definition's prompt; a slot without a definition keeps its value in
// the flow (whether the session keeps it is the session's rule).
func SlotRuleOf(rules domain.SlotRules) SlotRule {
	if rules.Empty() {
		return nil
	}
	return func(slot, value string) (string, string, bool) {
		def, ok := rules.Get(slot)
		if !ok {
			return value, "", true
		}
		kept, msg := rules.Value(slot, value)
		if msg != "" {
			return "", def.Prompt, false
		}
		return kept, "", true
	}
}
