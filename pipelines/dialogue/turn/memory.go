package turn

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
)

// Memory sizes.
const (
	// RecentTurns is how many of the newest messages memory recalls
	// verbatim (what GET …/memory shows).
	RecentTurns = domain.RecallTurns
	// summaryBatch is how many messages must have left the recent window
	// before the summary is brought up to date (one model call per batch).
	summaryBatch = 4
	// MaxSummaryRunes bounds the rolling summary.
	MaxSummaryRunes = 1200
	// sentenceRunes bounds one message's line in an extractive summary.
	sentenceRunes = 160
)

// Memory is what the dialogue remembers of a session: the newest turns
// verbatim and a rolling summary of the older ones.
type Memory struct {
	Recent         []domain.SessionMessage
	Summary        string
	SummarizedUpTo string
	Slots          map[string]string
}

// Recall reads a session's memory.
func Recall(ctx context.Context, chat domain.ChatStore, s domain.ChatSession) (Memory, error) {
	recent, err := chat.RecentMessages(ctx, s.TenantID, s.ID, RecentTurns)
	if err != nil {
		return Memory{}, err
	}
	return Memory{Recent: recent, Summary: s.Summary, SummarizedUpTo: s.SummarizedUpTo, Slots: s.Slots}, nil
}

// retrievalQuery is the text retrieval searches for: the message, preceded
// by the customer's previous message when this one is a short follow-up
// ("and for Japan?"), which says little on its own.
func retrievalQuery(message string, recent []domain.SessionMessage) (string, bool) {
	if len(strings.Fields(message)) >= 6 || utf8.RuneCountInString(message) >= 24 {
		return message, false
	}
	for i := len(recent) - 1; i >= 0; i-- {
		m := recent[i]
		if m.Role == domain.RoleUser && m.Content != message {
			return m.Content + "\n" + message, true
		}
	}
	return message, false
}

// summarizer brings a session's summary up to date once enough messages have
// left the recent window: with the kb_processing model when the tenant
// configured one, extractively otherwise.
type summarizer struct {
	models  domain.ChatModels
	prompts Prompts
	now     func() time.Time
}

// update returns the new summary and the id of the newest message it
// covers, or ok=false when it need not change, and the render of the
// tenant's published summary template when a model wrote the summary.
// window is the newest RecentTurns+summaryBatch messages, oldest first.
func (z summarizer) update(ctx context.Context, tenant domain.TenantID, summary, upTo string,
	window []domain.SessionMessage) (string, string, bool, *domain.PromptRender, error) {
	if len(window) <= RecentTurns {
		return "", "", false, nil, nil
	}
	old := window[:len(window)-RecentTurns]
	var fresh []domain.SessionMessage
	for _, m := range old {
		if m.ID > upTo {
			fresh = append(fresh, m)
		}
	}
	if len(fresh) < summaryBatch {
		return "", "", false, nil, nil
	}
	newest := fresh[len(fresh)-1].ID
	if z.models != nil {
		if m, err := z.models.For(ctx, tenant, domain.UsageKBProcessing); err == nil && m.Model() != domain.OfflineChatModel {
			sys := summaryInstruction
			var render *domain.PromptRender
			if z.prompts != nil {
				b := prompt.Builtin{TenantID: tenant, Now: z.now(), Summary: summary}
				s := prompt.Instruction(ctx, z.prompts, tenant, domain.SceneSummary, summaryInstruction,
					prompt.Input{Builtins: b.Map()}, z.now().UTC())
				sys, render = s.Text, s.Render
			}
			gen, err := m.Generate(ctx, domain.GenerateRequest{Messages: summaryPrompt(sys, summary, fresh), Temperature: 0, MaxTokens: 300})
			if err == nil && strings.TrimSpace(gen.Answer) != "" {
				return clip(strings.TrimSpace(gen.Answer)), newest, true, render, nil
			}
		}
	}
	return extractive(summary, fresh), newest, true, nil, nil
}

// summaryInstruction is the built-in instruction of a summary, used where
// the tenant has published no summary template.
const summaryInstruction = "Update the summary of this customer-service conversation with the new messages. " +
	"Keep facts the customer gave (names, numbers, products, problems) and what was promised. " +
	"At most 150 words, in the conversation's language. Answer with the summary only."

func summaryPrompt(system, summary string, msgs []domain.SessionMessage) []domain.ChatMessage {
	var b strings.Builder
	b.WriteString("Summary so far:\n")
	b.WriteString(summary)
	b.WriteString("\n\nNew messages:\n")
	for _, m := range msgs {
		b.WriteString(m.Role + ": " + m.Content + "\n")
	}
	return []domain.ChatMessage{{Role: "system", Content: system}, {Role: "user", Content: b.String()}}
}

// extractive appends one line per message (its first sentence) to the
// summary and keeps the newest MaxSummaryRunes characters, cut at a line.
func extractive(summary string, msgs []domain.SessionMessage) string {
	lines := []string{}
	if summary != "" {
		lines = append(lines, strings.Split(summary, "\n")...)
	}
	for _, m := range msgs {
		if s := firstSentence(m.Content); s != "" {
			lines = append(lines, m.Role+": "+s)
		}
	}
	for len(lines) > 1 && utf8.RuneCountInString(strings.Join(lines, "\n")) > MaxSummaryRunes {
		lines = lines[1:]
	}
	return clip(strings.Join(lines, "\n"))
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.IndexAny(s, ".?!。？！"); i >= 0 {
		_, size := utf8.DecodeRuneInString(s[i:])
		s = s[:i+size]
	}
	if utf8.RuneCountInString(s) > sentenceRunes {
		s = string([]rune(s)[:sentenceRunes]) + "…"
	}
	return s
}

func clip(s string) string {
	if utf8.RuneCountInString(s) <= MaxSummaryRunes {
		return s
	}
	r := []rune(s)
	return string(r[len(r)-MaxSummaryRunes:])
}
