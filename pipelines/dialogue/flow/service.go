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
// every flow before the store sees it, simulates stored flows, and reports
// their monitoring.
type Service struct {
	store  domain.ScriptFlowStore
	events domain.FlowEventStore
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

// NewService returns the flow administration over its stores.
func NewService(store domain.ScriptFlowStore, events domain.FlowEventStore) *Service {
	return &Service{store: store, events: events, now: time.Now}
}

// Create validates f (CodeValidation naming every bad field) and stores it
// with a new id.
func (s *Service) Create(ctx context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error) {
	if err := Validate(f); err != nil {
		return domain.ScriptFlow{}, err
	}
	f.ID = domain.NewID(domain.PrefixScriptFlow)
	return s.store.CreateScriptFlow(ctx, f)
}

// Get returns the tenant's flow id; CodeNotFound if there is none.
func (s *Service) Get(ctx context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, error) {
	return s.store.GetScriptFlow(ctx, tenant, id)
}

// Flow returns the tenant's flow id as stored and whether it is enabled:
// the dialogue's view of the flows (turn.Flows), which runs them as
// stored.
func (s *Service) Flow(ctx context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, bool, error) {
	f, err := s.store.GetScriptFlow(ctx, tenant, id)
	if err != nil {
		return domain.ScriptFlow{}, false, err
	}
	return f, f.Enabled, nil
}

// List lists the tenant's flows newest first.
func (s *Service) List(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.ScriptFlow], error) {
	return s.store.ListScriptFlows(ctx, tenant, p)
}

// Update validates f and replaces the stored flow of f.ID if f.Version is
// current. Returns CodeValidation, CodeNotFound or CodeVersionConflict.
func (s *Service) Update(ctx context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error) {
	if err := Validate(f); err != nil {
		return domain.ScriptFlow{}, err
	}
	return s.store.UpdateScriptFlow(ctx, f)
}

// Delete deletes the tenant's flow id; CodeNotFound if there is none.
func (s *Service) Delete(ctx context.Context, tenant domain.TenantID, id string) error {
	return s.store.DeleteScriptFlow(ctx, tenant, id)
}

// Simulate runs inputs through the tenant's flow id from its start,
// without a session (see the package function Simulate), whether the flow
// is enabled or not. Returns CodeNotFound if the flow does not exist in the
// tenant.
func (s *Service) Simulate(ctx context.Context, tenant domain.TenantID, id string, inputs []string) ([]Reply, error) {
	if len(inputs) > MaxSimulateInputs {
		return nil, domain.Invalid("/inputs", "at most 100 inputs")
	}
	f, err := s.store.GetScriptFlow(ctx, tenant, id)
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
	return Simulate(f, inputs, slots, s.now().UTC())
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
