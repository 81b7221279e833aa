package server

import (
	"context"
	"fmt"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/intent"
)

// IntentRules is what the server needs of the intent rule store: the rules
// and their monitoring.
type IntentRules interface {
	domain.IntentRuleStore
	domain.IntentMonitoringStore
}

// CreateIntentRule implements POST /admin/intent-rules.
func (h *handlers) CreateIntentRule(ctx context.Context, r api.CreateIntentRuleRequestObject) (api.CreateIntentRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	in := intentRuleFromCreate(*r.Body)
	in.ID, in.TenantID = domain.NewID(domain.PrefixIntentRule), tenant
	if err := h.validateIntentRule(ctx, in); err != nil {
		return nil, err
	}
	out, err := h.d.IntentRules.CreateIntentRule(ctx, in)
	if err != nil {
		return nil, err
	}
	h.dropIntentRules(tenant)
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
	res, err := h.d.IntentRules.ListIntentRules(ctx, tenant, page)
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
	rule, err := h.d.IntentRules.GetIntentRule(ctx, tenant, r.RuleId)
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
	if err := h.validateIntentRule(ctx, in); err != nil {
		return nil, err
	}
	out, err := h.d.IntentRules.UpdateIntentRule(ctx, in)
	if err != nil {
		return nil, err
	}
	h.dropIntentRules(tenant)
	return api.UpdateIntentRule200JSONResponse(toAPIIntentRule(out)), nil
}

// DeleteIntentRule implements DELETE /admin/intent-rules/{ruleId}.
func (h *handlers) DeleteIntentRule(ctx context.Context, r api.DeleteIntentRuleRequestObject) (api.DeleteIntentRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.IntentRules.DeleteIntentRule(ctx, tenant, r.RuleId); err != nil {
		return nil, err
	}
	h.dropIntentRules(tenant)
	return api.DeleteIntentRule204Response{}, nil
}

// TestIntentRule implements POST /admin/intent-rules/{ruleId}/test. It
// compiles the tenant's rules as stored (not the cached matcher), so that
// the answer reflects a write made a moment ago on any replica.
func (h *handlers) TestIntentRule(ctx context.Context, r api.TestIntentRuleRequestObject) (api.TestIntentRuleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	rules, err := h.d.IntentRules.AllIntentRules(ctx, tenant)
	if err != nil {
		return nil, err
	}
	res, err := intent.Test(intent.RulesFromDomain(rules), r.RuleId, r.Body.Message)
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

// validateIntentRule checks a rule before it is written: the matcher's own
// rules (patterns compile, the target fits the response type) and that the
// knowledge bases of a rag rule and the flow of a flow rule exist in the
// tenant (a flow deleted later is skipped at run time: the message goes on
// to retrieval, and the trace says why).
func (h *handlers) validateIntentRule(ctx context.Context, r domain.IntentRule) error {
	if err := intent.Validate(intent.RuleFromDomain(r)); err != nil {
		return err
	}
	var bad *domain.Error
	for i, id := range r.KBIDs {
		_, err := h.d.KnowledgeBases.GetKnowledgeBase(ctx, r.TenantID, id)
		if domain.ErrorCodeOf(err) == domain.CodeNotFound {
			field, msg := fmt.Sprintf("/kbIds/%d", i), "no such knowledge base in this tenant"
			if bad == nil {
				bad = domain.Invalid(field, msg)
			} else {
				bad.Fields = append(bad.Fields, domain.FieldError{Field: field, Message: msg})
			}
		} else if err != nil {
			return err
		}
	}
	if r.FlowID != "" && h.d.ScriptFlows != nil {
		_, err := h.d.ScriptFlows.Get(ctx, r.TenantID, r.FlowID)
		if domain.ErrorCodeOf(err) == domain.CodeNotFound {
			if bad == nil {
				bad = domain.Invalid("/flowId", "no such script flow in this tenant")
			} else {
				bad.Fields = append(bad.Fields, domain.FieldError{Field: "/flowId", Message: "no such script flow in this tenant"})
			}
		} else if err != nil {
			return err
		}
	}
	if bad != nil {
		return bad
	}
	return nil
}

// dropIntentRules drops this replica's compiled rules of tenant after a
// successful write (Deps.Invalidations).
func (h *handlers) dropIntentRules(tenant domain.TenantID) {
	if h.d.Invalidations != nil {
		h.d.Invalidations.Drop(domain.ConfigIntentRules, tenant)
	}
}

// intentRuleFromCreate applies the contract's defaults: keyword mode any,
// priority 0, enabled.
func intentRuleFromCreate(b api.IntentRuleCreateRequest) domain.IntentRule {
	r := domain.IntentRule{
		Name: b.Name, KeywordMode: string(intent.ModeAny), ResponseType: string(b.ResponseType), Enabled: true,
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
		RuleId: m.Rule.ID, Name: m.Rule.Name, Priority: int32(m.Rule.Priority),
		ResponseType: api.IntentResponseType(m.Rule.Response),
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
