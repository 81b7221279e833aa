package turn

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
)

// SceneChat is the prompt-template scene of the dialogue's answers.
const SceneChat = string(domain.SceneChat)

// promptOutcome is the evidence found, with the generation's messages
// (found.Prompt).
type promptOutcome struct {
	draft
	found answer.Outcome
}

// prompt makes the generation's messages: the system instruction (the
// tenant's published chat template, or the built-in one), the recalled
// turns, and the customer's message.
func (m msg) prompt(in retrievalOutcome) promptOutcome {
	done := m.stage(StagePrompt)
	sys := prompt.Instruction(m.ctx, m.r.d.Prompts, m.in.Tenant, domain.SceneChat, answer.SystemInstruction(),
		prompt.Input{Builtins: m.builtins(in.slots, answer.Evidence(in.found.Citations)), Values: m.in.Values}, m.now().UTC())
	detail := map[string]any{}
	d := in.draft
	if v := sys.Version; v != nil {
		detail["templateId"], detail["version"] = v.TemplateID, v.Version
		d.reply.Monitoring.TemplateID, d.reply.Monitoring.TemplateVersion = &v.TemplateID, ptr(v.Version)
	}
	if sys.Err != nil {
		detail["error"] = sys.Err.Error()
		m.r.d.Log.WarnContext(m.ctx, "prompt template unusable; using the built-in instruction", "tenant", m.in.Tenant, "err", sys.Err)
	}
	if sys.Outcome == prompt.OutcomeTemplate {
		detail["tokens"] = sys.Tokens
	}
	if sys.Render != nil {
		m.log.records.PromptRenders = append(m.log.records.PromptRenders, *sys.Render)
	}
	msgs := []domain.ChatMessage{{Role: "system", Content: sys.Text}}
	for _, r := range m.ses.recent() {
		msgs = append(msgs, domain.ChatMessage{Role: r.Role, Content: r.Content})
	}
	msgs = append(msgs, domain.ChatMessage{Role: "user", Content: m.in.Message})
	detail["messages"] = len(msgs)
	found := in.found
	found.Prompt = msgs
	done(sys.Outcome, detail)
	return promptOutcome{draft: d, found: found}
}

// builtins are the values the service injects into templates; the
// evidence is numbered as the built-in prompt numbers it.
func (m msg) builtins(slots map[string]string, evidence string) map[string]string {
	b := prompt.Builtin{TenantID: m.in.Tenant, Now: m.now(), Location: m.zone(), Slots: slots,
		Summary: m.ses.session.Summary, Message: m.in.Message}
	if tn, err := m.r.d.Tenants.Resolve(m.ctx, m.in.Tenant); err == nil {
		b.TenantName = tn.Name
	}
	bm := b.Map()
	bm[domain.BuiltinEvidence] = evidence
	return bm
}

// zone is the tenant's time zone (UTC when it set none or an unknown one).
func (m msg) zone() *time.Location {
	s, err := m.r.d.Settings.GetSettings(m.ctx, m.in.Tenant)
	if err != nil {
		return time.UTC
	}
	return s.Location()
}
