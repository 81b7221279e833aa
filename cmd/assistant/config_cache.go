package main

import "github.com/cs-assistant/assistant/domain"

// forgetConfig drops a tenant's cached dialogue configuration of one kind
// after another replica (or this one) changed it.
func (a *app) forgetConfig(kind domain.ConfigKind, tenant domain.TenantID) {
	switch kind {
	case domain.ConfigIntentRules:
		a.intentRules.Drop(string(tenant))
	case domain.ConfigScriptFlows:
		// Nothing to drop: the dialogue reads a flow from the store when it
		// starts or advances an instance, so edits apply at once.
	case domain.ConfigPromptTemplates:
		a.prompts.Drop(tenant)
	case domain.ConfigGuardrails:
		a.guards.Drop(tenant)
	default:
		a.log.Debug("ignoring an invalidation of an unknown configuration kind", "kind", kind, "tenant", tenant)
	}
}
