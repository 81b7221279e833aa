package flow

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Limits of the administration, as the contract states them.
const (
	// MaxSimulateInputs bounds the inputs of one simulation.
	MaxSimulateInputs = 100
	// DefaultStatsRange is the monitoring range when none is given.
	DefaultStatsRange = 7 * 24 * time.Hour
)

// Service is the administration of a tenant's script flows: it validates
// every flow before the store sees it (the tenant's regexes within their
// budget too), drops the written tenant's compiled flows (Cache) here at
// once (other replicas drop theirs on the store's notification), simulates
// stored flows, and reports their monitoring.
type Service struct {
	store  domain.ScriptFlowStore
	events domain.FlowEventStore
	inv    domain.Invalidator
	// slots, when set, gives the slot definitions simulations check slot
	// values against, as the dialogue does.
	slots domain.SlotRulesReader
	now   func() time.Time
}

// WithSlots makes simulations check the values steps put in slots against
// the tenant's slot definitions, read from slots (a slots.Cache, or the
// store; see SlotRuleOf); call it while wiring.
func (s *Service) WithSlots(slots domain.SlotRulesReader) *Service {
	s.slots = slots
	return s
}

// NewService returns the flow administration over its stores, dropping
// the written tenant's compiled flows through inv (nil: nothing to drop).
func NewService(store domain.ScriptFlowStore, events domain.FlowEventStore, inv domain.Invalidator) *Service {
	return &Service{store: store, events: events, inv: inv, now: time.Now}
}

// Create validates f (CodeValidation naming every bad field, and the
// regex that takes the tenant's regexes past their budget) and stores it
// with a new id.
func (s *Service) Create(ctx context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error) {
	f.ID = domain.NewID(domain.PrefixScriptFlow)
	if err := s.validate(ctx, f); err != nil {
		return domain.ScriptFlow{}, err
	}
	out, err := s.store.CreateScriptFlow(ctx, f)
	if err != nil {
		return domain.ScriptFlow{}, err
	}
	s.written(f.TenantID)
	return out, nil
}

// Get returns the tenant's flow id; CodeNotFound if there is none.
func (s *Service) Get(ctx context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, error) {
	return s.store.GetScriptFlow(ctx, tenant, id)
}

// List lists the tenant's flows newest first.
func (s *Service) List(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.ScriptFlow], error) {
	return s.store.ListScriptFlows(ctx, tenant, p)
}

// Update validates f as Create does and replaces the stored flow of f.ID
// if f.Version is current. Returns CodeValidation, CodeNotFound or
// CodeVersionConflict.
func (s *Service) Update(ctx context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error) {
	if err := s.validate(ctx, f); err != nil {
		return domain.ScriptFlow{}, err
	}
	out, err := s.store.UpdateScriptFlow(ctx, f)
	if err != nil {
		return domain.ScriptFlow{}, err
	}
	s.written(f.TenantID)
	return out, nil
}

// Delete deletes the tenant's flow id; CodeNotFound if there is none.
func (s *Service) Delete(ctx context.Context, tenant domain.TenantID, id string) error {
	if err := s.store.DeleteScriptFlow(ctx, tenant, id); err != nil {
		return err
	}
	s.written(tenant)
	return nil
}

// validate is Validate, then the tenant's budget (checkBudget).
func (s *Service) validate(ctx context.Context, f domain.ScriptFlow) error {
	if err := Validate(f); err != nil {
		return err
	}
	return s.checkBudget(ctx, f)
}

// written drops the tenant's compiled flows after a successful write.
func (s *Service) written(tenant domain.TenantID) {
	if s.inv != nil {
		s.inv.Drop(domain.ConfigScriptFlows, tenant)
	}
}

// Simulate runs inputs through the tenant's flow id from its start,
// without a session (see the package function Simulate), whether the flow
// is enabled or not. The flow is read as stored, not from a Cache, so that
// a write made a moment ago on any replica is simulated, and compiled once
// for all the inputs. Returns CodeNotFound if the flow does not exist in
// the tenant.
func (s *Service) Simulate(ctx context.Context, tenant domain.TenantID, id string, inputs []string) ([]Reply, error) {
	if len(inputs) > MaxSimulateInputs {
		return nil, domain.Invalid("/inputs", "at most 100 inputs")
	}
	f, err := s.store.GetScriptFlow(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	c, err := Compile(f)
	if err != nil {
		return nil, err
	}
	var slots SlotRule
	if s.slots != nil {
		rules, err := s.slots.SlotRules(ctx, tenant)
		if err != nil {
			return nil, err
		}
		slots = SlotRuleOf(rules)
	}
	return Simulate(c, inputs, slots, s.now().UTC())
}

// Report is a page of flow monitoring over [From, To).
type Report struct {
	From, To time.Time
	Page     domain.Page[domain.FlowStats]
}

// Stats reports the tenant's flows over instances started in [from, to).
// A nil to is now and a nil from is DefaultStatsRange before to; from must
// come before to and the range be at most domain.MaxStatsRange
// (CodeValidation naming query.from otherwise).
func (s *Service) Stats(ctx context.Context, tenant domain.TenantID, from, to *time.Time, p domain.PageRequest) (Report, error) {
	start, end, err := domain.StatsRange(from, to, s.now(), DefaultStatsRange)
	if err != nil {
		return Report{}, err
	}
	page, err := s.events.FlowStats(ctx, tenant, start, end, p)
	if err != nil {
		return Report{}, err
	}
	return Report{From: start, To: end, Page: page}, nil
}
