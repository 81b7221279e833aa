package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

const (
	wordsPath = "/admin/guardrails/forbidden-words/"
	rulesPath = "/admin/guardrails/behavior-rules/"
)

// CreateForbiddenWord implements POST /admin/guardrails/forbidden-words.
func (h *handlers) CreateForbiddenWord(ctx context.Context, r api.CreateForbiddenWordRequestObject) (api.CreateForbiddenWordResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	in := domain.ForbiddenWord{ID: domain.NewID(domain.PrefixForbiddenWord), TenantID: tenant, Word: b.Word,
		MatchMode: domain.GuardMatchMode(zeroIfNil(b.MatchMode)), Action: domain.GuardAction(zeroIfNil(b.Action)), Replacement: zeroIfNil(b.Replacement)}
	w, err := h.d.Guardrails.CreateWord(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreateForbiddenWord201JSONResponse{
		Body:    toAPIForbiddenWord(w),
		Headers: api.CreateForbiddenWord201ResponseHeaders{Location: BasePath + wordsPath + w.ID},
	}, nil
}

// ListForbiddenWords implements GET /admin/guardrails/forbidden-words.
func (h *handlers) ListForbiddenWords(ctx context.Context, r api.ListForbiddenWordsRequestObject) (api.ListForbiddenWordsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Guardrails.ListWords(ctx, tenant, page)
	if err != nil {
		return nil, err
	}
	return api.ListForbiddenWords200JSONResponse{Items: convertAll(res.Items, toAPIForbiddenWord), NextCursor: nextCursor(res.Next)}, nil
}

// GetForbiddenWord implements GET /admin/guardrails/forbidden-words/{wordId}.
func (h *handlers) GetForbiddenWord(ctx context.Context, r api.GetForbiddenWordRequestObject) (api.GetForbiddenWordResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	w, err := h.d.Guardrails.GetWord(ctx, tenant, r.WordId)
	if err != nil {
		return nil, err
	}
	return api.GetForbiddenWord200JSONResponse(toAPIForbiddenWord(w)), nil
}

// UpdateForbiddenWord implements PUT /admin/guardrails/forbidden-words/{wordId}.
func (h *handlers) UpdateForbiddenWord(ctx context.Context, r api.UpdateForbiddenWordRequestObject) (api.UpdateForbiddenWordResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	w, err := h.d.Guardrails.UpdateWord(ctx, domain.ForbiddenWord{ID: r.WordId, TenantID: tenant, Word: b.Word,
		MatchMode: domain.GuardMatchMode(b.MatchMode), Action: domain.GuardAction(b.Action), Replacement: zeroIfNil(b.Replacement),
		Version: b.Version})
	if err != nil {
		return nil, err
	}
	return api.UpdateForbiddenWord200JSONResponse(toAPIForbiddenWord(w)), nil
}

// DeleteForbiddenWord implements DELETE /admin/guardrails/forbidden-words/{wordId}.
func (h *handlers) DeleteForbiddenWord(ctx context.Context, r api.DeleteForbiddenWordRequestObject) (api.DeleteForbiddenWordResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Guardrails.DeleteWord(ctx, tenant, r.WordId); err != nil {
		return nil, err
	}
	return api.DeleteForbiddenWord204Response{}, nil
}

// CreateBehaviorRule implements POST /admin/guardrails/behavior-rules.
func (h *handlers) CreateBehaviorRule(ctx context.Context, r api.CreateBehaviorRuleRequestObject) (api.CreateBehaviorRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	in := domain.BehaviorRule{ID: domain.NewID(domain.PrefixBehaviorRule), TenantID: tenant, Name: b.Name,
		Kind: domain.GuardRuleKind(b.Kind), Pattern: zeroIfNil(b.Pattern), Category: zeroIfNil(b.Category),
		Action: domain.GuardAction(b.Action), Text: zeroIfNil(b.Text), Enabled: b.Enabled == nil || *b.Enabled, Position: -1}
	if b.Position != nil {
		in.Position = *b.Position
	}
	rule, err := h.d.Guardrails.CreateRule(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreateBehaviorRule201JSONResponse{
		Body:    toAPIBehaviorRule(rule),
		Headers: api.CreateBehaviorRule201ResponseHeaders{Location: BasePath + rulesPath + rule.ID},
	}, nil
}

// ListBehaviorRules implements GET /admin/guardrails/behavior-rules.
func (h *handlers) ListBehaviorRules(ctx context.Context, r api.ListBehaviorRulesRequestObject) (api.ListBehaviorRulesResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Guardrails.ListRules(ctx, tenant, page)
	if err != nil {
		return nil, err
	}
	return api.ListBehaviorRules200JSONResponse{Items: convertAll(res.Items, toAPIBehaviorRule), NextCursor: nextCursor(res.Next)}, nil
}

// GetBehaviorRule implements GET /admin/guardrails/behavior-rules/{ruleId}.
func (h *handlers) GetBehaviorRule(ctx context.Context, r api.GetBehaviorRuleRequestObject) (api.GetBehaviorRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	rule, err := h.d.Guardrails.GetRule(ctx, tenant, r.RuleId)
	if err != nil {
		return nil, err
	}
	return api.GetBehaviorRule200JSONResponse(toAPIBehaviorRule(rule)), nil
}

// UpdateBehaviorRule implements PUT /admin/guardrails/behavior-rules/{ruleId}.
func (h *handlers) UpdateBehaviorRule(ctx context.Context, r api.UpdateBehaviorRuleRequestObject) (api.UpdateBehaviorRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	rule, err := h.d.Guardrails.UpdateRule(ctx, domain.BehaviorRule{ID: r.RuleId, TenantID: tenant, Name: b.Name,
		Kind: domain.GuardRuleKind(b.Kind), Pattern: zeroIfNil(b.Pattern), Category: zeroIfNil(b.Category),
		Action: domain.GuardAction(b.Action), Text: zeroIfNil(b.Text), Enabled: b.Enabled, Position: b.Position, Version: b.Version})
	if err != nil {
		return nil, err
	}
	return api.UpdateBehaviorRule200JSONResponse(toAPIBehaviorRule(rule)), nil
}

// DeleteBehaviorRule implements DELETE /admin/guardrails/behavior-rules/{ruleId}.
func (h *handlers) DeleteBehaviorRule(ctx context.Context, r api.DeleteBehaviorRuleRequestObject) (api.DeleteBehaviorRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Guardrails.DeleteRule(ctx, tenant, r.RuleId); err != nil {
		return nil, err
	}
	return api.DeleteBehaviorRule204Response{}, nil
}

// GetGuardrailSettings implements GET /admin/guardrails/settings.
func (h *handlers) GetGuardrailSettings(ctx context.Context, _ api.GetGuardrailSettingsRequestObject) (api.GetGuardrailSettingsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Guardrails.Settings(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return api.GetGuardrailSettings200JSONResponse(toAPIGuardrailSettings(s)), nil
}

// UpdateGuardrailSettings implements PUT /admin/guardrails/settings.
func (h *handlers) UpdateGuardrailSettings(ctx context.Context, r api.UpdateGuardrailSettingsRequestObject) (api.UpdateGuardrailSettingsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	s, err := h.d.Guardrails.SaveSettings(ctx, domain.GuardSettings{TenantID: tenant, SafeText: b.SafeText,
		SkipDefaultHighRisk: b.SkipDefaultHighRisk, HighRisk: convertAll(b.HighRisk, highRiskFromAPI), Version: b.Version})
	if err != nil {
		return nil, err
	}
	return api.UpdateGuardrailSettings200JSONResponse(toAPIGuardrailSettings(s)), nil
}

// TestGuardrails implements POST /admin/guardrails/test.
func (h *handlers) TestGuardrails(ctx context.Context, r api.TestGuardrailsRequestObject) (api.TestGuardrailsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	stage := domain.GuardOutput
	if r.Body.Stage != nil {
		stage = domain.GuardStage(*r.Body.Stage)
	}
	v, err := h.d.Guardrails.Test(ctx, tenant, r.Body.Text, stage)
	if err != nil {
		return nil, err
	}
	return api.TestGuardrails200JSONResponse(toAPIGuardrailTestResult(r.Body.Text, stage, v)), nil
}
