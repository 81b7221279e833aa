package turn

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
)

// SceneChat is the prompt-template scene of the dialogue's answers.
const SceneChat = string(domain.SceneChat)

type promptDetail struct {
	outcome string
	m       map[string]any
}

// prompt makes the generation's messages: the system instruction (the
// tenant's published chat template, or the built-in one), the recalled
// turns, and the customer's message.
func (t *run) prompt(cs []answer.Citation) ([]domain.ChatMessage, promptDetail) {
	sys := prompt.Instruction(t.ctx, t.r.d.Prompts, t.in.Tenant, domain.SceneChat, answer.SystemInstruction(),
		prompt.Input{Builtins: t.builtins(answer.Evidence(cs)), Values: t.in.Values}, t.r.d.now().UTC())
	detail := promptDetail{outcome: sys.Outcome, m: map[string]any{}}
	if v := sys.Version; v != nil {
		detail.m["templateId"], detail.m["version"] = v.TemplateID, v.Version
		t.reply.Monitoring.TemplateID, t.reply.Monitoring.TemplateVersion = &v.TemplateID, ptr(v.Version)
	}
	if sys.Err != nil {
		detail.m["error"] = sys.Err.Error()
		t.r.d.Log.WarnContext(t.ctx, "prompt template unusable; using the built-in instruction", "tenant", t.in.Tenant, "err", sys.Err)
	}
	if sys.Outcome == prompt.OutcomeTemplate {
		detail.m["tokens"] = sys.Tokens
	}
	if sys.Render != nil {
		t.renders = append(t.renders, *sys.Render)
	}
	msgs := []domain.ChatMessage{{Role: "system", Content: sys.Text}}
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
	if tn, err := t.r.d.Tenants.Resolve(t.ctx, t.in.Tenant); err == nil {
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
