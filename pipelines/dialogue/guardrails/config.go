package guardrails

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// EngineConfig turns a stored configuration into the engine's. The rules
// keep their stored order; disabled ones are left out unless
// withDisabled, which validation uses so that every stored rule stays
// valid (a disabled rule can be enabled without a surprise).
func EngineConfig(c domain.GuardConfig, withDisabled bool) guard.Config {
	out := guard.Config{
		Words:               make([]guard.ForbiddenWord, len(c.Words)),
		Rules:               make([]guard.BehaviorRule, 0, len(c.Rules)),
		HighRisk:            make([]guard.HighRisk, len(c.Settings.HighRisk)),
		SkipDefaultHighRisk: c.Settings.SkipDefaultHighRisk,
		SafeText:            c.Settings.SafeText,
	}
	for i, w := range c.Words {
		out.Words[i] = guard.ForbiddenWord{ID: w.ID, Word: w.Word, Mode: guard.MatchMode(w.MatchMode),
			Action: guard.Action(w.Action), Replacement: w.Replacement}
	}
	for _, r := range c.Rules {
		if !r.Enabled && !withDisabled {
			continue
		}
		out.Rules = append(out.Rules, guard.BehaviorRule{ID: r.ID, Name: r.Name, Kind: string(r.Kind), Pattern: r.Pattern,
			Category: r.Category, Action: guard.Action(r.Action), Text: r.Text})
	}
	for i, l := range c.Settings.HighRisk {
		out.HighRisk[i] = guard.HighRisk{Category: l.Category, Keywords: l.Keywords, Patterns: l.Patterns}
	}
	return out
}

// DefaultHighRisk returns the built-in high-risk lists, which apply
// together with a tenant's own unless it skips them.
func DefaultHighRisk() []domain.HighRiskList {
	ls := guard.DefaultHighRisk()
	out := make([]domain.HighRiskList, len(ls))
	for i, l := range ls {
		out[i] = domain.HighRiskList{Category: l.Category, Keywords: l.Keywords, Patterns: l.Patterns}
		if out[i].Patterns == nil {
			out[i].Patterns = []string{}
		}
	}
	return out
}
