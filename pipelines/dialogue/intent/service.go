package intent

import (
	"context"
	"fmt"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// Store is what the service needs of storage: the rules and their
// monitoring.
type Store interface {
	domain.IntentRuleStore
	domain.IntentMonitoringStore
}

// KnowledgeBases finds the knowledge bases a rag rule names.
type KnowledgeBases interface {
	// GetKnowledgeBase returns CodeNotFound if it does not exist in the
	// tenant.
	GetKnowledgeBase(ctx context.Context, tenant domain.TenantID, id string) (domain.KnowledgeBase, error)
}

// Flows finds the script flow a flow rule names.
type Flows interface {
	// GetScriptFlow returns CodeNotFound if the flow does not exist in the
	// tenant.
	GetScriptFlow(ctx context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, error)
}

// Monitoring ranges of Stats.
const (
	// DefaultStatsRange is the range when the request names no from.
	DefaultStatsRange = 7 * 24 * time.Hour
)

// Service is the admin side of intent rules. Every write is validated
// first and, once stored, drops the tenant's compiled rules here at once
// (other replicas drop theirs on the store's notification), so that this
// replica never matches with rules older than its own write.
type Service struct {
	store Store
	kbs   KnowledgeBases
	flows Flows
	inv   domain.Invalidator
	now   func() time.Time
}

// NewService returns the service over store, checking the knowledge bases
// and flows rules name with kbs and flows (a nil flows skips the flow
// check) and dropping the written tenant's rules through inv (nil: nothing
// to drop).
func NewService(store Store, kbs KnowledgeBases, flows Flows, inv domain.Invalidator) *Service {
	return &Service{store: store, kbs: kbs, flows: flows, inv: inv, now: time.Now}
}

// Create validates r and stores it under a new ID. Returns CodeValidation
// (with the body field), CodeConflict.
func (s *Service) Create(ctx context.Context, r domain.IntentRule) (domain.IntentRule, error) {
	r.ID = domain.NewID(domain.PrefixIntentRule)
	if err := s.validate(ctx, r); err != nil {
		return domain.IntentRule{}, err
	}
	out, err := s.store.CreateIntentRule(ctx, r)
	if err != nil {
		return domain.IntentRule{}, err
	}
	s.written(r.TenantID)
	return out, nil
}

// Get returns CodeNotFound if the rule does not exist in the tenant.
func (s *Service) Get(ctx context.Context, tenant domain.TenantID, id string) (domain.IntentRule, error) {
	return s.store.GetIntentRule(ctx, tenant, id)
}

// List lists the tenant's rules newest first.
func (s *Service) List(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.IntentRule], error) {
	return s.store.ListIntentRules(ctx, tenant, p)
}

// Update validates r and replaces the stored rule of r.ID if r.Version is
// current. Returns CodeValidation, CodeNotFound, CodeVersionConflict,
// CodeConflict.
func (s *Service) Update(ctx context.Context, r domain.IntentRule) (domain.IntentRule, error) {
	if err := s.validate(ctx, r); err != nil {
		return domain.IntentRule{}, err
	}
	out, err := s.store.UpdateIntentRule(ctx, r)
	if err != nil {
		return domain.IntentRule{}, err
	}
	s.written(r.TenantID)
	return out, nil
}

// Delete returns CodeNotFound if the rule does not exist in the tenant.
func (s *Service) Delete(ctx context.Context, tenant domain.TenantID, id string) error {
	if err := s.store.DeleteIntentRule(ctx, tenant, id); err != nil {
		return err
	}
	s.written(tenant)
	return nil
}

// Test tries the rule id on message. It compiles the tenant's rules as
// stored (not the cached matcher), so that the answer reflects a write
// made a moment ago on any replica. Returns CodeNotFound for an unknown
// rule.
func (s *Service) Test(ctx context.Context, tenant domain.TenantID, id, message string) (TestResult, error) {
	rules, err := s.store.AllIntentRules(ctx, tenant)
	if err != nil {
		return TestResult{}, err
	}
	return Test(rules, id, message)
}

// Stats pages the tenant's rules (newest first) with their hits in
// [from, to), widened to whole hours by the store. A nil to is now and a
// nil from is DefaultStatsRange before to; from must come before to and
// the range be at most domain.MaxStatsRange (CodeValidation naming
// query.from otherwise).
func (s *Service) Stats(ctx context.Context, tenant domain.TenantID, from, to *time.Time, p domain.PageRequest) (domain.IntentStatsPage, error) {
	// The store widens the range to whole hours.
	start, end, err := domain.HourStatsRange(from, to, s.now(), DefaultStatsRange)
	if err != nil {
		return domain.IntentStatsPage{}, err
	}
	return s.store.IntentRuleStats(ctx, tenant, start, end, p)
}

// Hits lists the hits of the rule id newest first. Returns CodeNotFound
// if the rule does not exist in the tenant.
func (s *Service) Hits(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.IntentHitRecord], error) {
	return s.store.ListIntentHits(ctx, tenant, id, p)
}

// validate checks a rule before it is written: the matcher's own rules
// (patterns compile within their bounds, the target fits the response
// type), that the tenant's patterns with this rule's stay within their
// budget, and that the knowledge bases of a rag rule and the flow of a
// flow rule exist in the tenant (a flow deleted later is skipped at run
// time: the message goes on to retrieval, and the trace says why).
func (s *Service) validate(ctx context.Context, r domain.IntentRule) error {
	if err := Validate(r); err != nil {
		return err
	}
	bad, err := s.checkBudget(ctx, r)
	if err != nil {
		return err
	}
	for i, id := range r.KBIDs {
		_, err := s.kbs.GetKnowledgeBase(ctx, r.TenantID, id)
		if domain.ErrorCodeOf(err) == domain.CodeNotFound {
			bad = addField(bad, fmt.Sprintf("/kbIds/%d", i), "no such knowledge base in this tenant")
		} else if err != nil {
			return err
		}
	}
	if r.FlowID != "" && s.flows != nil {
		_, err := s.flows.GetScriptFlow(ctx, r.TenantID, r.FlowID)
		if domain.ErrorCodeOf(err) == domain.CodeNotFound {
			bad = addField(bad, "/flowId", "no such script flow in this tenant")
		} else if err != nil {
			return err
		}
	}
	if bad != nil {
		return bad
	}
	return nil
}

// checkBudget refuses r, on the pattern that passes it, when the
// tenant's stored patterns (those of r's stored version aside) and r's
// would take the tenant past its budget (safere.MaxTenantSize,
// safere.MaxTenantStepCost). Two writes at once may both pass; Compile
// leaves out what is past the budget then.
func (s *Service) checkBudget(ctx context.Context, r domain.IntentRule) (*domain.Error, error) {
	if len(r.Patterns) == 0 {
		return nil, nil
	}
	stored, err := s.store.AllIntentRules(ctx, r.TenantID)
	if err != nil {
		return nil, err
	}
	budget := safere.NewBudget(budgetName)
	for _, o := range stored {
		if o.ID == r.ID {
			continue
		}
		for _, p := range o.Patterns {
			_ = budget.Add(patternFootprint(p)) // what is past the budget already is not counted
		}
	}
	for i, p := range r.Patterns {
		if err := budget.Add(patternFootprint(p)); err != nil {
			return domain.Invalid(fmt.Sprintf("/patterns/%d", i), patternProblem(i, p, err)), nil
		}
	}
	return nil, nil
}

// addField adds a field error to bad, making the validation error if bad
// is nil.
func addField(bad *domain.Error, field, msg string) *domain.Error {
	if bad == nil {
		return domain.Invalid(field, msg)
	}
	bad.Fields = append(bad.Fields, domain.FieldError{Field: field, Message: msg})
	return bad
}

// written drops the tenant's compiled rules after a successful write.
func (s *Service) written(tenant domain.TenantID) {
	if s.inv != nil {
		s.inv.Drop(domain.ConfigIntentRules, tenant)
	}
}
