package server

import (
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// zeroIfNil returns *p, or the zero value for nil.
func zeroIfNil[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// emptyAsNull returns nil for "", else a pointer to s.
func emptyAsNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toAPIForbiddenWord(w domain.ForbiddenWord) api.ForbiddenWord {
	return api.ForbiddenWord{
		Id: w.ID, TenantId: string(w.TenantID), Word: w.Word, MatchMode: api.GuardMatchMode(w.MatchMode),
		Action: api.ForbiddenWordAction(w.Action), Replacement: w.Replacement, Version: w.Version,
		CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
	}
}

func toAPIBehaviorRule(r domain.BehaviorRule) api.BehaviorRule {
	return api.BehaviorRule{
		Id: r.ID, TenantId: string(r.TenantID), Name: r.Name, Kind: api.BehaviorRuleKind(r.Kind), Pattern: r.Pattern,
		Category: r.Category, Action: api.BehaviorRuleAction(r.Action), Text: r.Text, Enabled: r.Enabled,
		Position: r.Position, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

func toAPIHighRisk(l domain.HighRiskList) api.HighRiskList {
	return api.HighRiskList{Category: l.Category, Keywords: nonNilStrings(l.Keywords), Patterns: nonNilStrings(l.Patterns)}
}

func highRiskFromAPI(l api.HighRiskList) domain.HighRiskList {
	return domain.HighRiskList{Category: l.Category, Keywords: l.Keywords, Patterns: l.Patterns}
}

func toAPIGuardrailSettings(s domain.GuardSettings) api.GuardrailSettings {
	return api.GuardrailSettings{
		TenantId: string(s.TenantID), SafeText: s.SafeText, SkipDefaultHighRisk: s.SkipDefaultHighRisk,
		HighRisk: convertAll(s.HighRisk, toAPIHighRisk), DefaultSafeText: guard.DefaultSafeText,
		DefaultHighRisk: convertAll(guard.DefaultHighRiskLists(), toAPIHighRisk), Version: s.Version, UpdatedAt: s.UpdatedAt,
	}
}

// toAPIGuardrailTestResult converts a verdict on text; hits carry byte
// offsets (as the engine reports them) and code-point offsets.
func toAPIGuardrailTestResult(text string, stage domain.GuardStage, v guard.Verdict) api.GuardrailTestResult {
	hits := make([]api.GuardrailTestHit, len(v.Hits))
	// Hits are ordered by Start, so the code points are counted in one pass.
	pos, chars := 0, 0
	for i, h := range v.Hits {
		if h.Start >= pos {
			chars += utf8.RuneCountInString(text[pos:h.Start])
			pos = h.Start
		} else {
			chars, pos = utf8.RuneCountInString(text[:h.Start]), h.Start
		}
		hits[i] = api.GuardrailTestHit{
			Kind: api.GuardHitKind(h.Kind), Id: emptyAsNull(h.ID), Category: emptyAsNull(h.Category),
			Start: int32(h.Start), End: int32(h.End), CharStart: int32(chars),
			CharEnd: int32(chars + utf8.RuneCountInString(h.Matched)),
			Matched: h.Matched, Pattern: h.Pattern, Action: api.GuardHitAction(h.Action),
		}
	}
	return api.GuardrailTestResult{Stage: api.GuardStage(stage), Text: v.Text, Blocked: v.Blocked, Transfer: v.Transfer,
		Reason: emptyAsNull(v.Reason), Hits: hits}
}
