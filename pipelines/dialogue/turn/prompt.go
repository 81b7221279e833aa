package turn

import (
	"sort"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
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
	tpl, found, err := t.r.d.Prompts.Published(t.ctx, t.in.Tenant, SceneChat)
	switch {
	case err != nil:
		detail.outcome = "fallback"
		detail.m["error"] = err.Error()
		t.r.d.Log.Warn("prompt template unavailable; using the built-in instruction", "tenant", t.in.Tenant, "err", err)
	case found:
		text, tokens, rerr := tpl.Render(t.builtins(evidence), t.in.Values)
		render := domain.PromptRender{TenantID: t.in.Tenant, TemplateID: tpl.ID, Version: tpl.Version, Scene: SceneChat,
			Tokens: tokens, At: t.r.d.now().UTC()}
		detail.m["templateId"], detail.m["version"] = tpl.ID, tpl.Version
		t.reply.Monitoring.TemplateID, t.reply.Monitoring.TemplateVersion = &tpl.ID, ptr(tpl.Version)
		if rerr != nil {
			render.Fallback = true
			detail.outcome = "fallback"
			detail.m["error"] = rerr.Error()
			t.r.d.Log.Warn("prompt template could not be rendered; using the built-in instruction",
				"tenant", t.in.Tenant, "template", tpl.ID, "version", tpl.Version, "err", rerr)
		} else {
			system = text
			if !tpl.UsesEvidence {
				system += "\n\nEvidence:\n" + evidence
			}
			detail.outcome = "template"
			detail.m["tokens"] = tokens
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

// builtins are the values the service injects into templates.
func (t *run) builtins(evidence string) map[string]string {
	name := string(t.in.Tenant)
	if tn, err := t.r.d.Tenants.GetTenant(t.ctx, t.in.Tenant); err == nil && tn.Name != "" {
		name = tn.Name
	}
	return map[string]string{
		domain.BuiltinTenantName:  name,
		domain.BuiltinCurrentTime: t.r.d.now().In(t.zone()).Format(time.RFC3339),
		domain.BuiltinSlots:       slotLines(t.session.Slots),
		domain.BuiltinEvidence:    evidence,
		domain.BuiltinSummary:     t.session.Summary,
		domain.BuiltinMessage:     t.in.Message,
	}
}

// zone is the tenant's time zone (UTC when it set none or an unknown one).
func (t *run) zone() *time.Location {
	s, err := t.r.d.Settings.GetSettings(t.ctx, t.in.Tenant)
	if err != nil {
		return time.UTC
	}
	return s.Location()
}

func slotLines(slots map[string]string) string {
	keys := make([]string, 0, len(slots))
	for k := range slots {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + ": " + slots[k] + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
