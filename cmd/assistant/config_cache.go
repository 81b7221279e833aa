package main

import "github.com/cs-assistant/assistant/domain"

// forgetConfig drops a tenant's cached dialogue configuration of one kind
// after another replica (or this one) changed it.
func (a *app) forgetConfig(kind domain.ConfigKind, tenant domain.TenantID) {
	switch kind {
	// >>> intent-rules forget
	case domain.ConfigIntentRules:
		a.intentRules.Drop(string(tenant))
	// <<< intent-rules forget
	// >>> script-flows forget
	case domain.ConfigScriptFlows:
		// Nothing to drop: the dialogue reads a flow from the store when it
		// starts or advances an instance, so edits apply at once.
	// <<< script-flows forget
	// >>> prompt-templates forget
	case domain.ConfigPromptTemplates:
		a.prompts.Drop(tenant)
	// <<< prompt-templates forget
	// >>> guardrails forget
	case domain.ConfigGuardrails:
		a.guards.Drop(tenant)
	// <<< guardrails forget
	default:
		a.log.Debug("ignoring an invalidation of an unknown configuration kind", "kind", kind, "tenant", tenant)
	}
}
