package main

import (
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// The guardrail types the app holds, named here so that app.go needs no
// import of its own for them.
type (
	// guardCache hands out each tenant's compiled Guard:
	// For(ctx, tenant) (*guard.Guard, error).
	guardCache = guard.Guards
	// guardAdmin is the admin side: words, rules, settings, test, stats.
	guardAdmin = guard.Service
)

// buildGuardrails builds the per-tenant Guard cache (a 60 s TTL as the
// safety net; writes drop a tenant's entry through a.invalidations, here
// at once and on other replicas on the store's notification) and the
// admin service over the store.
func (a *app) buildGuardrails() {
	a.guards = guard.NewGuards(a.store.LoadGuardConfig, tenantcache.DefaultTTL, a.invalidations)
	a.guardAdmin = guard.NewService(a.store, a.guards, a.invalidations)
}
