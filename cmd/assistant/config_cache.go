package main

import "github.com/cs-assistant/assistant/domain"

// forgetConfig drops a tenant's cached dialogue configuration of one kind
// after another replica (or this one) changed it.
func (a *app) forgetConfig(kind domain.ConfigKind, tenant domain.TenantID) {
	switch kind {
	// >>> intent-rules forget
	// <<< intent-rules forget
	// >>> script-flows forget
	// <<< script-flows forget
	// >>> prompt-templates forget
	// <<< prompt-templates forget
	// >>> guardrails forget
	case domain.ConfigGuardrails:
		a.guards.Drop(tenant)
	// <<< guardrails forget
	default:
		a.log.Debug("ignoring an invalidation of an unknown configuration kind", "kind", kind, "tenant", tenant)
	}
}
