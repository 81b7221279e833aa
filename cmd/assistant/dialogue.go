package main

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
	"github.com/cs-assistant/assistant/store/pg"
)

// buildDialogue makes the turn runner from the stage caches and the store.
func (a *app) buildDialogue(answerer *answer.Answerer) *turn.Runner {
	return turn.New(turn.Deps{
		Log: a.log, Chat: a.store, Tenants: a.store, Settings: a.store, Metadata: a.store,
		Rules: a.intentRules, Flows: storedFlows{a.store}, Prompts: publishedPrompts{a.prompts}, Guards: a.guards,
		Answerer: answerer, Models: a.models, Recorder: a.store,
	})
}

// storedFlows reads script flows for the runner.
type storedFlows struct{ store *pg.Store }

// Flow implements turn.Flows.
func (s storedFlows) Flow(ctx context.Context, tenant domain.TenantID, id string) (flow.Flow, bool, error) {
	f, err := s.store.GetScriptFlow(ctx, tenant, id)
	if err != nil {
		return flow.Flow{}, false, err
	}
	return flow.FromDomain(f), f.Enabled, nil
}

// publishedPrompts serves the published template of a scene, ready to
// render, from the prompt cache.
type publishedPrompts struct{ cache *prompt.Cache }

// Published implements turn.Prompts.
func (p publishedPrompts) Published(ctx context.Context, tenant domain.TenantID, scene string) (turn.Template, bool, error) {
	v, err := p.cache.PublishedPrompt(ctx, tenant, scene)
	if domain.ErrorCodeOf(err) == domain.CodeNotFound {
		return turn.Template{}, false, nil
	}
	if err != nil {
		return turn.Template{}, false, err
	}
	uses := false
	for _, vr := range v.Variables {
		if vr.Name == domain.BuiltinEvidence {
			uses = true
		}
	}
	return turn.Template{ID: v.TemplateID, Version: v.Version, UsesEvidence: uses,
		Render: func(builtins, values map[string]string) (string, int, error) {
			r, err := prompt.Render(v, prompt.Input{Builtins: builtins, Values: values})
			return r.Text, r.Tokens, err
		}}, true, nil
}
