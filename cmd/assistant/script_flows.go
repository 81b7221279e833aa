package main

import (
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/store/pg"
)

// newScriptFlows builds the script-flow administration. It lives here, not
// in app.go, so that the wiring of each dialogue feature stays in its own
// file.
func newScriptFlows(store *pg.Store) *flow.Service {
	return flow.NewService(store, store).WithSlots(store)
}
