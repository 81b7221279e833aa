package main

import (
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
	"github.com/cs-assistant/assistant/pipelines/dialogue/slots"
)

// decomposition is the slot definitions and the decomposition templates
// at work: their administration, and the decomposer the dialogue and
// uploads run.
type decomposition struct {
	slots *slots.Service
	run   *decompose.Decomposer
	admin *decompose.Service
}

// buildDecomposition wires them over the store, the kb_processing model and
// a cache of each tenant's published decomposition (dropped through the
// registry on publish, rollback and delete). It lives here, not in app.go,
// so that the wiring of each dialogue feature stays in its own file.
func (a *app) buildDecomposition() decomposition {
	published := decompose.NewCache(a.store, tenantcache.DefaultTTL, a.invalidations)
	run := decompose.New(published, a.store, a.store, a.models, a.log)
	return decomposition{
		slots: slots.NewService(a.store, a.store),
		run:   run,
		admin: decompose.NewService(a.store, run, a.invalidations),
	}
}
