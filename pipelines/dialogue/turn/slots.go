package turn

import (
	"context"
	"maps"

	"github.com/cs-assistant/assistant/domain"
)

// slotRules reads the tenant's slot definitions (cached) for one message,
// once, when a stage first needs them; a read that failed is tried again
// by the next stage that needs them.
type slotRules struct {
	ctx    context.Context
	tenant domain.TenantID
	// read is nil when slots are free-form.
	read  domain.SlotRulesReader
	rules *domain.SlotRules
}

func (s *slotRules) get() (domain.SlotRules, error) {
	if s.rules != nil {
		return *s.rules, nil
	}
	var rules domain.SlotRules
	if s.read != nil {
		var err error
		if rules, err = s.read.SlotRules(s.ctx, s.tenant); err != nil {
			return domain.SlotRules{}, err
		}
	}
	s.rules = &rules
	return rules, nil
}

// fillSlot returns slots with key set to value, unless the tenant's
// definitions refuse it (the caller checked the value; what is left to
// refuse is a slot they do not define) or the session is full: then key
// joins refused. filled reports whether the slot changed. slots itself is
// never changed: a filled slot comes in a new map.
func fillSlot(slots map[string]string, rules domain.SlotRules, key, value string, refused *[]string) (_ map[string]string, filled bool) {
	if slots[key] == value {
		return slots, false
	}
	_, defined := rules.Get(key)
	_, had := slots[key]
	if (!rules.Empty() && !defined) || (!had && len(slots) >= domain.MaxSessionSlots) {
		*refused = append(*refused, key)
		return slots, false
	}
	out := make(map[string]string, len(slots)+1)
	maps.Copy(out, slots)
	out[key] = value
	return out, true
}
