package turn

import (
	"maps"
	"slices"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
)

// slotRules reads the tenant's slot definitions (cached), once per message.
func (t *run) slotRules() (domain.SlotRules, error) {
	if t.rules != nil {
		return *t.rules, nil
	}
	var rules domain.SlotRules
	if t.r.d.Slots != nil {
		var err error
		if rules, err = t.r.d.Slots.SlotRules(t.ctx, t.in.Tenant); err != nil {
			return domain.SlotRules{}, err
		}
	}
	t.rules = &rules
	return rules, nil
}

// flowSlotRule is the slot rule a flow runs with in this tenant.
func (t *run) flowSlotRule() (flow.SlotRule, error) {
	rules, err := t.slotRules()
	if err != nil {
		return nil, err
	}
	return flow.SlotRuleOf(rules), nil
}

// fillSlot puts a value in the session's slots unless the tenant's
// definitions refuse it (the caller checked the value; what is left to
// refuse is a slot they do not define) or the session is full. It reports
// whether the slot changed.
func (t *run) fillSlot(rules domain.SlotRules, key, value string) bool {
	if t.session.Slots[key] == value {
		return false
	}
	_, defined := rules.Get(key)
	_, had := t.session.Slots[key]
	if (!rules.Empty() && !defined) || (!had && len(t.session.Slots) >= domain.MaxSessionSlots) {
		t.refusedSlots = append(t.refusedSlots, key)
		return false
	}
	t.session.Slots[key] = value
	return true
}

// decompose runs the tenant's active decomposition template over the
// message before retrieval: the slot values it extracted fill the session
// (the newest value wins), the metadata values join the retrieval filter.
// A failure is logged and changes nothing: the reply never fails for it.
// The result goes into the retrieval stage's detail; nil when nothing ran.
func (t *run) decompose() *decompose.Result {
	if t.r.d.Decomposer == nil {
		return nil
	}
	res, ok, err := t.r.d.Decomposer.Message(t.ctx, t.in.Tenant, t.in.Message)
	if err != nil {
		t.r.d.Log.WarnContext(t.ctx, "decomposition skipped", "tenant", string(t.in.Tenant), "err", err)
		return nil
	}
	if !ok {
		return nil
	}
	rules, err := t.slotRules()
	if err != nil {
		t.r.d.Log.WarnContext(t.ctx, "decomposition skipped", "tenant", string(t.in.Tenant), "err", err)
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(res.Slots)) {
		if t.fillSlot(rules, k, res.Slots[k]) {
			t.trace(toolSlotFill, map[string]any{"slot": k, "value": res.Slots[k], "templateId": res.TemplateID,
				"version": res.Version}, "filled "+k, 0, nil)
		}
	}
	return &res
}

// retrievalFilter is the filter the message's retrieval runs with: the
// session's slots typed by their definitions (domain.SlotFilter), and the
// decomposition's metadata values of filter fields over them.
func (t *run) retrievalFilter(dec *decompose.Result) (map[string]any, error) {
	if t.r.d.Metadata == nil || (len(t.session.Slots) == 0 && (dec == nil || len(dec.Metadata) == 0)) {
		return nil, nil
	}
	fields, err := t.r.d.Metadata.MetadataFields(t.ctx, t.in.Tenant, domain.MetadataFieldFilter{Role: ptr(domain.RoleFilter)})
	if err != nil {
		return nil, err
	}
	rules, err := t.slotRules()
	if err != nil {
		return nil, err
	}
	f := domain.SlotFilter(fields, rules, t.session.Slots)
	if dec != nil {
		for k, v := range domain.MetadataFilter(fields, dec.Metadata) {
			if f == nil {
				f = map[string]any{}
			}
			f[k] = v
		}
	}
	return f, nil
}
