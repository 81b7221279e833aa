package guard

import "github.com/cs-assistant/assistant/domain"

// ConfigFrom turns a tenant's stored configuration into the Config that
// Compile takes. The rules keep their stored order; disabled ones are left
// out unless withDisabled, which validation uses so that every stored rule
// stays valid (a disabled rule can be enabled without a surprise).
func ConfigFrom(c domain.GuardConfig, withDisabled bool) Config {
	out := Config{
		Words:               make([]ForbiddenWord, len(c.Words)),
		Rules:               make([]BehaviorRule, 0, len(c.Rules)),
		HighRisk:            make([]HighRisk, len(c.Settings.HighRisk)),
		SkipDefaultHighRisk: c.Settings.SkipDefaultHighRisk,
		SafeText:            c.Settings.SafeText,
	}
	for i, w := range c.Words {
		out.Words[i] = ForbiddenWord{ID: w.ID, Word: w.Word, Mode: MatchMode(w.MatchMode),
			Action: Action(w.Action), Replacement: w.Replacement}
	}
	for _, r := range c.Rules {
		if !r.Enabled && !withDisabled {
			continue
		}
		out.Rules = append(out.Rules, BehaviorRule{ID: r.ID, Name: r.Name, Kind: string(r.Kind), Pattern: r.Pattern,
			Category: r.Category, Action: Action(r.Action), Text: r.Text})
	}
	for i, l := range c.Settings.HighRisk {
		out.HighRisk[i] = HighRisk{Category: l.Category, Keywords: l.Keywords, Patterns: l.Patterns}
	}
	return out
}

// DefaultHighRiskLists returns the built-in high-risk lists
// (DefaultHighRisk) in the shape of a tenant's stored settings, as the
// admin API shows them: they apply together with a tenant's own unless it
// skips them.
func DefaultHighRiskLists() []domain.HighRiskList {
	ls := DefaultHighRisk()
	out := make([]domain.HighRiskList, len(ls))
	for i, l := range ls {
		out[i] = domain.HighRiskList{Category: l.Category, Keywords: l.Keywords, Patterns: l.Patterns}
		if out[i].Patterns == nil {
			out[i].Patterns = []string{}
		}
	}
	return out
}
