package prompt

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// How a system instruction was made.
const (
	// OutcomeTemplate: the tenant's published template, rendered.
	OutcomeTemplate = "template"
	// OutcomeBuiltin: no template is published for the scene.
	OutcomeBuiltin = "builtin"
	// OutcomeFallback: a published template could not be loaded or
	// rendered (a required value was missing); the built-in one stood in.
	OutcomeFallback = "fallback"
)

// System is the system instruction of one generation and how it was made.
type System struct {
	Text    string
	Outcome string
	// Version is the template version used or tried; nil for builtin.
	Version *domain.PromptVersion
	// Render is the record of the render, for template monitoring; nil
	// when no template was tried.
	Render *domain.PromptRender
	// Tokens is Text's length when a template rendered.
	Tokens int
	// Err is why a template could not be used (OutcomeFallback).
	Err error
}

// Instruction makes the system instruction of scene for tenant: its
// published template rendered with in, or builtin when none is published or
// it cannot be used. The evidence (in.Builtins[domain.BuiltinEvidence]) is
// appended under "Evidence:" unless the template places it itself. now
// stamps the render record. Every scene (chat, rag_lab, summary) is made
// here, so they render and are monitored alike.
func Instruction(ctx context.Context, pub Published, tenant domain.TenantID, scene domain.PromptScene,
	builtin string, in Input, now time.Time) System {
	evidence := in.Builtins[domain.BuiltinEvidence]
	withEvidence := func(s string) string {
		if evidence == "" {
			return s
		}
		return s + "\n\nEvidence:\n" + evidence
	}
	sys := System{Text: withEvidence(builtin), Outcome: OutcomeBuiltin}
	v, err := pub.PublishedPrompt(ctx, tenant, string(scene))
	switch {
	case domain.ErrorCodeOf(err) == domain.CodeNotFound:
		return sys
	case err != nil:
		sys.Outcome, sys.Err = OutcomeFallback, err
		return sys
	}
	sys.Version = &v
	r, err := Render(v, in)
	sys.Render = &domain.PromptRender{TenantID: tenant, TemplateID: v.TemplateID, Version: v.Version, Scene: string(scene),
		Tokens: r.Tokens, At: now}
	if err != nil {
		sys.Render.Fallback = true
		sys.Outcome, sys.Err = OutcomeFallback, err
		return sys
	}
	sys.Outcome, sys.Tokens = OutcomeTemplate, r.Tokens
	sys.Text = r.Text
	if !placesEvidence(v) {
		sys.Text = withEvidence(r.Text)
	}
	return sys
}

// placesEvidence reports whether a template places the evidence itself;
// placeholders must be declared, so the declaration says it.
func placesEvidence(v domain.PromptVersion) bool {
	for _, vr := range v.Variables {
		if vr.Name == domain.BuiltinEvidence {
			return true
		}
	}
	return false
}
