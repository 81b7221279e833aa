package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/intent"
)

// CreateIntentRule implements POST /admin/intent-rules.
func (h *handlers) CreateIntentRule(ctx context.Context, r api.CreateIntentRuleRequestObject) (api.CreateIntentRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	in := intentRuleFromCreate(*r.Body)
	in.TenantID = tenant
	out, err := h.d.IntentRules.Create(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreateIntentRule201JSONResponse{
		Body:    toAPIIntentRule(out),
		Headers: api.CreateIntentRule201ResponseHeaders{Location: BasePath + "/admin/intent-rules/" + out.ID},
	}, nil
}

// ListIntentRules implements GET /admin/intent-rules.
func (h *handlers) ListIntentRules(ctx context.Context, r api.ListIntentRulesRequestObject) (api.ListIntentRulesResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.IntentRules.List(ctx, tenant, page)
	if err != nil {
		return nil, err
	}
	return api.ListIntentRules200JSONResponse{Items: convertAll(res.Items, toAPIIntentRule), NextCursor: nextCursor(res.Next)}, nil
}

// GetIntentRule implements GET /admin/intent-rules/{ruleId}.
func (h *handlers) GetIntentRule(ctx context.Context, r api.GetIntentRuleRequestObject) (api.GetIntentRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	rule, err := h.d.IntentRules.Get(ctx, tenant, r.RuleId)
	if err != nil {
		return nil, err
	}
	return api.GetIntentRule200JSONResponse(toAPIIntentRule(rule)), nil
}

// UpdateIntentRule implements PUT /admin/intent-rules/{ruleId}.
func (h *handlers) UpdateIntentRule(ctx context.Context, r api.UpdateIntentRuleRequestObject) (api.UpdateIntentRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	in := intentRuleFromUpdate(*r.Body)
	in.ID, in.TenantID = r.RuleId, tenant
	out, err := h.d.IntentRules.Update(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.UpdateIntentRule200JSONResponse(toAPIIntentRule(out)), nil
}

// DeleteIntentRule implements DELETE /admin/intent-rules/{ruleId}.
func (h *handlers) DeleteIntentRule(ctx context.Context, r api.DeleteIntentRuleRequestObject) (api.DeleteIntentRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.IntentRules.Delete(ctx, tenant, r.RuleId); err != nil {
		return nil, err
	}
	return api.DeleteIntentRule204Response{}, nil
}

// TestIntentRule implements POST /admin/intent-rules/{ruleId}/test, on the
// tenant's rules as stored (not the cached matcher).
func (h *handlers) TestIntentRule(ctx context.Context, r api.TestIntentRuleRequestObject) (api.TestIntentRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	res, err := h.d.IntentRules.Test(ctx, tenant, r.RuleId, r.Body.Message)
	if err != nil {
		return nil, err
	}
	out := api.IntentRuleTestResult{
		RuleId: r.RuleId, Enabled: res.Hit.Rule.Enabled, Matches: res.Matches, WouldWin: res.WouldWin,
		Keywords: intentList(res.Hit.Keywords), Patterns: intentList(res.Hit.Patterns),
		Conflicts: convertAll(res.Conflicts, toAPIIntentRuleMatch),
	}
	if res.Winner != nil {
		w := api.IntentRuleWinner(toAPIIntentRuleMatch(*res.Winner))
		out.Winner = &w
	}
	return api.TestIntentRule200JSONResponse(out), nil
}

// intentRuleFromCreate applies the contract's defaults: keyword mode any,
// priority 0, enabled.
func intentRuleFromCreate(b api.IntentRuleCreateRequest) domain.IntentRule {
	r := domain.IntentRule{
		Name: b.Name, KeywordMode: intent.ModeAny, ResponseType: string(b.ResponseType), Enabled: true,
		FixedText: intentText(b.FixedText), FlowID: intentText(b.FlowId), TransferReason: intentText(b.TransferReason),
	}
	if b.Keywords != nil {
		r.Keywords = *b.Keywords
	}
	if b.KeywordMode != nil {
		r.KeywordMode = string(*b.KeywordMode)
	}
	if b.Patterns != nil {
		r.Patterns = *b.Patterns
	}
	if b.Priority != nil {
		r.Priority = *b.Priority
	}
	if b.KbIds != nil {
		r.KBIDs = *b.KbIds
	}
	if b.Enabled != nil {
		r.Enabled = *b.Enabled
	}
	return r
}

func intentRuleFromUpdate(b api.IntentRuleUpdateRequest) domain.IntentRule {
	r := domain.IntentRule{
		Name: b.Name, Keywords: b.Keywords, KeywordMode: string(b.KeywordMode), Patterns: b.Patterns,
		Priority: b.Priority, ResponseType: string(b.ResponseType), Enabled: b.Enabled, Version: b.Version,
		FixedText: intentText(b.FixedText), FlowID: intentText(b.FlowId), TransferReason: intentText(b.TransferReason),
	}
	if b.KbIds != nil {
		r.KBIDs = *b.KbIds
	}
	return r
}

func toAPIIntentRule(r domain.IntentRule) api.IntentRule {
	return api.IntentRule{
		Id: r.ID, TenantId: string(r.TenantID), Name: r.Name, Keywords: intentList(r.Keywords),
		KeywordMode: api.IntentKeywordMode(r.KeywordMode), Patterns: intentList(r.Patterns), Priority: r.Priority,
		ResponseType: api.IntentResponseType(r.ResponseType), FixedText: r.FixedText, KbIds: intentList(r.KBIDs),
		FlowId: r.FlowID, TransferReason: r.TransferReason, Enabled: r.Enabled, Version: r.Version,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

func toAPIIntentRuleMatch(m intent.Match) api.IntentRuleMatch {
	return api.IntentRuleMatch{
		RuleId: m.Rule.ID, Name: m.Rule.Name, Priority: m.Rule.Priority,
		ResponseType: api.IntentResponseType(m.Rule.ResponseType),
		Keywords:     intentList(m.Keywords), Patterns: intentList(m.Patterns),
	}
}

// intentList answers [] rather than null for an empty list.
func intentList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// intentText reads an optional text; absent is empty.
func intentText(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
