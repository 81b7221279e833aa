package guard

import (
	"context"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// DefaultStatsWindow is the monitoring window when no range is given.
const DefaultStatsWindow = 7 * 24 * time.Hour

// Store is what the service needs of storage.
type Store interface {
	domain.GuardrailStore
	domain.GuardHitStore
}

// Service is the admin side of guardrails. Every write is validated by
// compiling the tenant's whole resulting configuration (in the write's
// transaction), and drops the tenant's cached Guard here at once (other
// replicas drop theirs on the store's notification).
type Service struct {
	store  Store
	guards *Guards
	inv    domain.Invalidator
	now    func() time.Time
}

// NewService returns the service over store, testing with guards and
// dropping the written tenant's guardrails through inv.
func NewService(store Store, guards *Guards, inv domain.Invalidator) *Service {
	return &Service{store: store, guards: guards, inv: inv, now: time.Now}
}

// CreateWord adds a forbidden word (MatchMode and Action default to exact
// and mask). Returns CodeValidation (with the body field), CodeConflict.
func (s *Service) CreateWord(ctx context.Context, w domain.ForbiddenWord) (domain.ForbiddenWord, error) {
	w = normalizeWord(w)
	out, err := s.store.CreateForbiddenWord(ctx, w, s.check(targetWord, w.ID))
	return out, s.written(w.TenantID, err)
}

// GetWord returns CodeNotFound if the word does not exist in the tenant.
func (s *Service) GetWord(ctx context.Context, tenant domain.TenantID, id string) (domain.ForbiddenWord, error) {
	return s.store.GetForbiddenWord(ctx, tenant, id)
}

// ListWords lists the tenant's words newest first.
func (s *Service) ListWords(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.ForbiddenWord], error) {
	return s.store.ListForbiddenWords(ctx, tenant, p)
}

// UpdateWord replaces a word. Returns CodeValidation, CodeNotFound,
// CodeVersionConflict, CodeConflict.
func (s *Service) UpdateWord(ctx context.Context, w domain.ForbiddenWord) (domain.ForbiddenWord, error) {
	w = normalizeWord(w)
	out, err := s.store.UpdateForbiddenWord(ctx, w, s.check(targetWord, w.ID))
	return out, s.written(w.TenantID, err)
}

// DeleteWord returns CodeNotFound if the word does not exist in the tenant.
func (s *Service) DeleteWord(ctx context.Context, tenant domain.TenantID, id string) error {
	return s.written(tenant, s.store.DeleteForbiddenWord(ctx, tenant, id))
}

// CreateRule adds a behaviour rule (a negative Position places it last).
// Returns CodeValidation with the body field.
func (s *Service) CreateRule(ctx context.Context, r domain.BehaviorRule) (domain.BehaviorRule, error) {
	if err := validateRule(r); err != nil {
		return domain.BehaviorRule{}, err
	}
	out, err := s.store.CreateBehaviorRule(ctx, r, s.check(targetRule, r.ID))
	return out, s.written(r.TenantID, err)
}

// GetRule returns CodeNotFound if the rule does not exist in the tenant.
func (s *Service) GetRule(ctx context.Context, tenant domain.TenantID, id string) (domain.BehaviorRule, error) {
	return s.store.GetBehaviorRule(ctx, tenant, id)
}

// ListRules lists the tenant's rules in the order they apply.
func (s *Service) ListRules(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.BehaviorRule], error) {
	return s.store.ListBehaviorRules(ctx, tenant, p)
}

// UpdateRule replaces a rule. Returns CodeValidation, CodeNotFound,
// CodeVersionConflict.
func (s *Service) UpdateRule(ctx context.Context, r domain.BehaviorRule) (domain.BehaviorRule, error) {
	if err := validateRule(r); err != nil {
		return domain.BehaviorRule{}, err
	}
	out, err := s.store.UpdateBehaviorRule(ctx, r, s.check(targetRule, r.ID))
	return out, s.written(r.TenantID, err)
}

// DeleteRule returns CodeNotFound if the rule does not exist in the tenant.
func (s *Service) DeleteRule(ctx context.Context, tenant domain.TenantID, id string) error {
	return s.written(tenant, s.store.DeleteBehaviorRule(ctx, tenant, id))
}

// Settings returns the tenant's settings (version 0 before the first save).
func (s *Service) Settings(ctx context.Context, tenant domain.TenantID) (domain.GuardSettings, error) {
	return s.store.GetGuardSettings(ctx, tenant)
}

// SaveSettings replaces the tenant's settings. Returns CodeValidation
// (a list that does not compile, or a removed category a rule still
// names), CodeVersionConflict.
func (s *Service) SaveSettings(ctx context.Context, gs domain.GuardSettings) (domain.GuardSettings, error) {
	for i, l := range gs.HighRisk {
		gs.HighRisk[i].Category = strings.TrimSpace(l.Category)
	}
	out, err := s.store.SaveGuardSettings(ctx, gs, s.check(targetSettings, ""))
	return out, s.written(gs.TenantID, err)
}

// Test checks text with the tenant's current Guard, as the dialogue would
// at stage (input: high risk only; output: everything).
func (s *Service) Test(ctx context.Context, tenant domain.TenantID, text string, stage domain.GuardStage) (Verdict, error) {
	g, err := s.guards.For(ctx, tenant)
	if err != nil {
		return Verdict{}, err
	}
	if stage == domain.GuardInput {
		return g.CheckInput(text), nil
	}
	return g.CheckOutput(text), nil
}

// Stats aggregates the tenant's hits over [from, to); a nil to is now and
// a nil from is DefaultStatsWindow before to. Returns CodeValidation when
// from is not before to or the range is over domain.MaxStatsRange.
func (s *Service) Stats(ctx context.Context, tenant domain.TenantID, from, to *time.Time) (domain.GuardStats, error) {
	start, end, err := domain.StatsRange(from, to, s.now(), DefaultStatsWindow)
	if err != nil {
		return domain.GuardStats{}, err
	}
	return s.store.GuardStats(ctx, tenant, start, end)
}

// written drops the tenant's cached Guard after a successful write.
func (s *Service) written(tenant domain.TenantID, err error) error {
	if err == nil && s.inv != nil {
		s.inv.Drop(domain.ConfigGuardrails, tenant)
	}
	return err
}

// normalizeWord trims the word and fills in the defaults.
func normalizeWord(w domain.ForbiddenWord) domain.ForbiddenWord {
	w.Word = strings.TrimSpace(w.Word)
	if w.MatchMode == "" {
		w.MatchMode = domain.GuardMatchExact
	}
	if w.Action == "" {
		w.Action = domain.GuardMask
	}
	return w
}

// validateRule checks what the engine does not: which fields go with
// which kind.
func validateRule(r domain.BehaviorRule) error {
	switch {
	case strings.TrimSpace(r.Name) == "":
		return domain.Invalid("/name", "must not be empty")
	case r.Kind == domain.GuardRuleHighRisk && r.Pattern != "":
		return domain.Invalid("/pattern", "a high_risk rule has no pattern: it names a category (or none, for any)")
	case r.Kind != domain.GuardRuleHighRisk && r.Category != "":
		return domain.Invalid("/category", "only a high_risk rule has a category")
	case r.Position > domain.MaxRulePosition:
		return domain.Invalid("/position", "must be at most 1000000")
	}
	return nil
}
