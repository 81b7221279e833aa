package main

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
	"github.com/cs-assistant/assistant/store/pg"
)

// buildDialogue makes the turn runner from the stage caches and the store.
func (a *app) buildDialogue(answerer *answer.Answerer) *turn.Runner {
	return turn.New(turn.Deps{
		Log: a.log, Chat: a.store, Tenants: a.tenants, Settings: a.settings, Metadata: a.store,
		Rules: a.intentRules, Flows: storedFlows{a.store}, Prompts: a.prompts, Guards: a.guards,
		Answerer: answerer, Models: a.models, Telemetry: a.dialogueTelemetry(),
		Slots: a.store, Decomposer: a.decomposition.run,
	})
}

// storedFlows reads script flows for the runner, which runs them as
// stored.
type storedFlows struct{ store *pg.Store }

// Flow implements turn.Flows.
func (s storedFlows) Flow(ctx context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, bool, error) {
	f, err := s.store.GetScriptFlow(ctx, tenant, id)
	if err != nil {
		return domain.ScriptFlow{}, false, err
	}
	return f, f.Enabled, nil
}
