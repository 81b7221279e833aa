package turn

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
)

// SceneChat is the prompt-template scene of the dialogue's answers.
const SceneChat = "chat"

type promptDetail struct {
	outcome string
	m       map[string]any
}

// prompt makes the generation's messages: the system instruction (the
// tenant's published chat template, or the built-in one), the recalled
// turns, and the customer's message.
func (t *run) prompt(cs []answer.Citation) ([]domain.ChatMessage, promptDetail) {
	evidence := answer.Evidence(cs)
	system := answer.SystemInstruction() + "\n\nEvidence:\n" + evidence
	detail := promptDetail{outcome: "builtin", m: map[string]any{}}
	v, err := t.r.d.Prompts.PublishedPrompt(t.ctx, t.in.Tenant, SceneChat)
	switch {
	case domain.ErrorCodeOf(err) == domain.CodeNotFound:
	case err != nil:
		detail.outcome = "fallback"
		detail.m["error"] = err.Error()
		t.r.d.Log.Warn("prompt template unavailable; using the built-in instruction", "tenant", t.in.Tenant, "err", err)
	default:
		r, rerr := prompt.Render(v, prompt.Input{Builtins: t.builtins(evidence), Values: t.in.Values})
		render := domain.PromptRender{TenantID: t.in.Tenant, TemplateID: v.TemplateID, Version: v.Version, Scene: SceneChat,
			Tokens: r.Tokens, At: t.r.d.now().UTC()}
		detail.m["templateId"], detail.m["version"] = v.TemplateID, v.Version
		t.reply.Monitoring.TemplateID, t.reply.Monitoring.TemplateVersion = &v.TemplateID, ptr(v.Version)
		if rerr != nil {
			render.Fallback = true
			detail.outcome = "fallback"
			detail.m["error"] = rerr.Error()
			t.r.d.Log.Warn("prompt template could not be rendered; using the built-in instruction",
				"tenant", t.in.Tenant, "template", v.TemplateID, "version", v.Version, "err", rerr)
		} else {
			system = r.Text
			if !usesEvidence(v) {
				system += "\n\nEvidence:\n" + evidence
			}
			detail.outcome = "template"
			detail.m["tokens"] = r.Tokens
		}
		t.renders = append(t.renders, render)
	}
	msgs := []domain.ChatMessage{{Role: "system", Content: system}}
	for _, m := range t.recent() {
		msgs = append(msgs, domain.ChatMessage{Role: m.Role, Content: m.Content})
	}
	msgs = append(msgs, domain.ChatMessage{Role: "user", Content: t.in.Message})
	detail.m["messages"] = len(msgs)
	return msgs, detail
}

// builtins are the values the service injects into templates; the
// evidence is numbered as the built-in prompt numbers it.
func (t *run) builtins(evidence string) map[string]string {
	b := prompt.Builtin{TenantID: t.in.Tenant, Now: t.r.d.now(), Location: t.zone(), Slots: t.session.Slots,
		Summary: t.session.Summary, Message: t.in.Message}
	if tn, err := t.r.d.Tenants.GetTenant(t.ctx, t.in.Tenant); err == nil {
		b.TenantName = tn.Name
	}
	m := b.Map()
	m[domain.BuiltinEvidence] = evidence
	return m
}

// zone is the tenant's time zone (UTC when it set none or an unknown one).
func (t *run) zone() *time.Location {
	s, err := t.r.d.Settings.GetSettings(t.ctx, t.in.Tenant)
	if err != nil {
		return time.UTC
	}
	return s.Location()
}

// usesEvidence reports whether a template places the evidence itself;
// otherwise it is appended after the template's text. Placeholders must be
// declared, so the declaration says it.
func usesEvidence(v domain.PromptVersion) bool {
	for _, vr := range v.Variables {
		if vr.Name == domain.BuiltinEvidence {
			return true
		}
	}
	return false
}
