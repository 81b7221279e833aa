package server

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
)

// CreateScriptFlow implements POST /admin/script-flows.
func (h *handlers) CreateScriptFlow(ctx context.Context, r api.CreateScriptFlowRequestObject) (api.CreateScriptFlowResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	in := domain.ScriptFlow{TenantID: tenant, Name: r.Body.Name, Enabled: true, Steps: flowStepsFromAPI(r.Body.Steps)}
	if r.Body.Description != nil {
		in.Description = *r.Body.Description
	}
	if r.Body.Enabled != nil {
		in.Enabled = *r.Body.Enabled
	}
	f, err := h.d.ScriptFlows.Create(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreateScriptFlow201JSONResponse{
		Body:    toAPIScriptFlow(f),
		Headers: api.CreateScriptFlow201ResponseHeaders{Location: BasePath + "/admin/script-flows/" + f.ID},
	}, nil
}

// ListScriptFlows implements GET /admin/script-flows.
func (h *handlers) ListScriptFlows(ctx context.Context, r api.ListScriptFlowsRequestObject) (api.ListScriptFlowsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.ScriptFlows.List(ctx, tenant, page)
	if err != nil {
		return nil, err
	}
	return api.ListScriptFlows200JSONResponse{Items: convertAll(res.Items, toAPIScriptFlow), NextCursor: nextCursor(res.Next)}, nil
}

// GetScriptFlow implements GET /admin/script-flows/{flowId}.
func (h *handlers) GetScriptFlow(ctx context.Context, r api.GetScriptFlowRequestObject) (api.GetScriptFlowResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	f, err := h.d.ScriptFlows.Get(ctx, tenant, r.FlowId)
	if err != nil {
		return nil, err
	}
	return api.GetScriptFlow200JSONResponse(toAPIScriptFlow(f)), nil
}

// UpdateScriptFlow implements PUT /admin/script-flows/{flowId}.
func (h *handlers) UpdateScriptFlow(ctx context.Context, r api.UpdateScriptFlowRequestObject) (api.UpdateScriptFlowResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	f, err := h.d.ScriptFlows.Update(ctx, domain.ScriptFlow{
		ID: r.FlowId, TenantID: tenant, Name: r.Body.Name, Description: r.Body.Description,
		Enabled: r.Body.Enabled, Steps: flowStepsFromAPI(r.Body.Steps), Version: r.Body.Version,
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateScriptFlow200JSONResponse(toAPIScriptFlow(f)), nil
}

// DeleteScriptFlow implements DELETE /admin/script-flows/{flowId}.
func (h *handlers) DeleteScriptFlow(ctx context.Context, r api.DeleteScriptFlowRequestObject) (api.DeleteScriptFlowResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.ScriptFlows.Delete(ctx, tenant, r.FlowId); err != nil {
		return nil, err
	}
	return api.DeleteScriptFlow204Response{}, nil
}

// SimulateScriptFlow implements POST /admin/script-flows/{flowId}/simulate.
func (h *handlers) SimulateScriptFlow(ctx context.Context, r api.SimulateScriptFlowRequestObject) (api.SimulateScriptFlowResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	replies, err := h.d.ScriptFlows.Simulate(ctx, tenant, r.FlowId, r.Body.Inputs)
	if err != nil {
		return nil, err
	}
	return api.SimulateScriptFlow200JSONResponse(toAPIFlowSimulation(r.Body.Inputs, replies)), nil
}

// flowStepsFromAPI converts the contract's steps field for field; what the
// contract leaves out is the engine's zero value (no wait, no check, the
// next step in order, no timeout).
func flowStepsFromAPI(in []api.ScriptFlowStep) []domain.ScriptFlowStep {
	out := make([]domain.ScriptFlowStep, len(in))
	for i, s := range in {
		out[i] = domain.ScriptFlowStep{
			StepNo: s.StepNo, Prompt: s.Prompt, WaitInput: isTrue(s.WaitInput),
			DefaultNext: flowTargetFromAPI(s.DefaultNext), OnTimeout: flowTargetFromAPI(s.OnTimeout),
		}
		if s.Timeout != nil {
			out[i].Timeout = time.Duration(*s.Timeout) * time.Second
		}
		if e := s.Expect; e != nil {
			out[i].Expect = &domain.ScriptFlowExpect{
				Regex: flowText(e.Regex), Slot: flowText(e.Slot), RetryPrompt: flowText(e.RetryPrompt),
				OnInvalid: flowTargetFromAPI(e.OnInvalid),
			}
			if e.Options != nil {
				out[i].Expect.Options = *e.Options
			}
			if e.MaxRetries != nil {
				out[i].Expect.MaxRetries = *e.MaxRetries
			}
		}
		if s.Branches != nil {
			for _, b := range *s.Branches {
				out[i].Branches = append(out[i].Branches, domain.ScriptFlowBranch{Option: b.Option, Then: *flowTargetFromAPI(&b.Then)})
			}
		}
	}
	return out
}

func flowTargetFromAPI(t *api.ScriptFlowTarget) *domain.ScriptFlowTarget {
	if t == nil {
		return nil
	}
	out := &domain.ScriptFlowTarget{Kind: string(t.Kind), Reason: flowText(t.Reason), Text: flowText(t.Text)}
	if t.StepNo != nil {
		out.StepNo = *t.StepNo
	}
	return out
}

// flowText reads an optional text of a flow; absent is empty.
func flowText(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// flowOptional renders a text of a flow, leaving empty ones out.
func flowOptional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toAPIScriptFlow(f domain.ScriptFlow) api.ScriptFlow {
	return api.ScriptFlow{
		Id: f.ID, TenantId: string(f.TenantID), Name: f.Name, Description: f.Description, Enabled: f.Enabled,
		Steps: convertAll(f.Steps, toAPIFlowStep), Version: f.Version, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
}

// toAPIFlowStep renders a step with the fields it sets; wait_input is
// always given, so a reader need not know its default.
func toAPIFlowStep(s domain.ScriptFlowStep) api.ScriptFlowStep {
	out := api.ScriptFlowStep{
		StepNo: s.StepNo, Prompt: s.Prompt, WaitInput: &s.WaitInput,
		DefaultNext: toAPIFlowTargetPtr(s.DefaultNext), OnTimeout: toAPIFlowTargetPtr(s.OnTimeout),
	}
	if s.Timeout > 0 {
		secs := int(s.Timeout / time.Second)
		out.Timeout = &secs
	}
	if e := s.Expect; e != nil {
		out.Expect = &api.ScriptFlowExpect{
			Regex: flowOptional(e.Regex), Slot: flowOptional(e.Slot), RetryPrompt: flowOptional(e.RetryPrompt),
			OnInvalid: toAPIFlowTargetPtr(e.OnInvalid),
		}
		if len(e.Options) > 0 {
			out.Expect.Options = &e.Options
		}
		if e.MaxRetries > 0 {
			out.Expect.MaxRetries = &e.MaxRetries
		}
	}
	if len(s.Branches) > 0 {
		branches := make([]api.ScriptFlowBranch, len(s.Branches))
		for i, b := range s.Branches {
			branches[i] = api.ScriptFlowBranch{Option: b.Option, Then: toAPIFlowTarget(b.Then)}
		}
		out.Branches = &branches
	}
	return out
}

func toAPIFlowTarget(t domain.ScriptFlowTarget) api.ScriptFlowTarget {
	out := api.ScriptFlowTarget{Kind: api.ScriptFlowTargetKind(t.Kind), Reason: flowOptional(t.Reason), Text: flowOptional(t.Text)}
	if t.StepNo != 0 {
		out.StepNo = &t.StepNo
	}
	return out
}

func toAPIFlowTargetPtr(t *domain.ScriptFlowTarget) *api.ScriptFlowTarget {
	if t == nil {
		return nil
	}
	out := toAPIFlowTarget(*t)
	return &out
}

// toAPIFlowSimulation renders the engine's replies: the first is Start's,
// reply k (k ≥ 1) answered inputs[k-1].
func toAPIFlowSimulation(inputs []string, replies []flow.Reply) api.ScriptFlowSimulation {
	out := api.ScriptFlowSimulation{Calls: make([]api.ScriptFlowSimulationCall, len(replies)), InputsUsed: len(replies) - 1}
	for k, r := range replies {
		call := api.ScriptFlowSimulationCall{Texts: r.Texts, Taken: make([]api.ScriptFlowTaken, len(r.Taken))}
		if call.Texts == nil {
			call.Texts = []string{}
		}
		if k > 0 {
			call.Input = &inputs[k-1]
		}
		for i, t := range r.Taken {
			call.Taken[i] = api.ScriptFlowTaken{StepNo: t.StepNo, Input: t.Input, Matched: t.Matched, Action: api.ScriptFlowAction(t.Action)}
			if t.Then.Kind != "" {
				then := toAPIFlowTarget(t.Then)
				call.Taken[i].Then = &then
			}
		}
		out.Calls[k] = call
	}
	last := replies[len(replies)-1]
	st := last.State
	out.State = api.ScriptFlowState{StepNo: st.StepNo, Waiting: st.Waiting, Retries: st.Retries, Slots: st.Slots, Done: st.Done}
	if out.State.Slots == nil {
		out.State.Slots = map[string]string{}
	}
	if st.Outcome != "" {
		outcome := api.ScriptFlowOutcome(st.Outcome)
		out.State.Outcome = &outcome
	}
	out.Transfer, out.TransferReason = last.Transfer, flowOptional(last.TransferReason)
	return out
}
