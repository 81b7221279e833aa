// Package retrieve finds the evidence for an answer with the tenant's
// retrieval strategy, judges whether it is enough, and manages the
// strategies themselves (switch, validate, rollback, audit, metrics).
package retrieve

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// recentForRisks is how many recent retrievals a risk report looks at.
const recentForRisks = 200

// maxCachedStrategies bounds the cache of switched-to strategies.
const maxCachedStrategies = 10000

// Strategies manages tenants' retrieval strategies.
type Strategies struct {
	store     domain.StrategyStore
	settings  domain.SettingsStore
	embedders domain.Embedders
	// switched caches each tenant's switched-to strategy (nil: the
	// default), which every retrieval reads; a change drops it here and,
	// announced by the store (domain.ConfigStrategy), on every replica.
	switched *tenantcache.Cache[domain.TenantID, *domain.RetrievalStrategy]
	inv      domain.Invalidator
	now      func() time.Time
}

// NewStrategies returns the strategy service. The default strategy follows
// the tenant's embedding model (see domain.DefaultStrategy) and its
// settings (read through settings, which may cache them too). A change
// made by another replica is trusted to arrive; ttl bounds how stale a
// strategy is when it does not. The cache registers with inv (a registry
// of its own when nil).
func NewStrategies(store domain.StrategyStore, settings domain.SettingsStore, embedders domain.Embedders,
	ttl time.Duration, inv *tenantcache.Registry) *Strategies {
	if inv == nil {
		inv = tenantcache.NewRegistry()
	}
	return &Strategies{store: store, settings: settings, embedders: embedders, now: time.Now, inv: inv,
		switched: tenantcache.New(tenantcache.Config[domain.TenantID, *domain.RetrievalStrategy]{
			Name: "retrieval strategy", Load: store.CurrentStrategy, TTL: ttl, MaxEntries: maxCachedStrategies,
			Invalidations: inv, Kind: domain.ConfigStrategy,
		})}
}

// CountLookups makes the strategy cache count its hits and misses with l;
// call it before the service is used.
func (s *Strategies) CountLookups(l domain.LookupCounter) { s.switched.CountLookups(l) }

// Change is the outcome of a switch or rollback.
type Change struct {
	Strategy, Previous domain.RetrievalStrategy
	Findings           []domain.RiskFinding
	At                 time.Time
}

// Current returns the tenant's active strategy: the one it switched to,
// or the default built from its settings and its embedding model.
func (s *Strategies) Current(ctx context.Context, tenant domain.TenantID) (domain.RetrievalStrategy, error) {
	c, err := s.Calibration(ctx, tenant)
	if err != nil {
		return domain.RetrievalStrategy{}, err
	}
	return s.currentFor(ctx, tenant, c)
}

// currentFor is Current for a caller that knows the calibration already
// (the retriever, which has the embedder in hand).
func (s *Strategies) currentFor(ctx context.Context, tenant domain.TenantID, c domain.ScoreCalibration) (domain.RetrievalStrategy, error) {
	st, err := s.switched.Get(ctx, tenant)
	if err != nil || st != nil {
		return deref(st), err
	}
	return s.defaultWith(ctx, tenant, c)
}

// Calibration returns the score calibration of the tenant's embedding
// model.
func (s *Strategies) Calibration(ctx context.Context, tenant domain.TenantID) (domain.ScoreCalibration, error) {
	e, err := s.embedders.For(ctx, tenant)
	if err != nil {
		return domain.ScoreCalibration{}, err
	}
	return domain.CalibrationFor(e.Model()), nil
}

// Default returns the strategy the tenant has while it uses the default:
// the one its settings and its embedding model's calibration make. After
// a change of embedding model it is the new model's, proposed in the
// embedding update's answer.
func (s *Strategies) Default(ctx context.Context, tenant domain.TenantID) (domain.RetrievalStrategy, error) {
	c, err := s.Calibration(ctx, tenant)
	if err != nil {
		return domain.RetrievalStrategy{}, err
	}
	return s.defaultWith(ctx, tenant, c)
}

// defaultWith builds the default strategy from the tenant's settings and
// the calibration c.
func (s *Strategies) defaultWith(ctx context.Context, tenant domain.TenantID, c domain.ScoreCalibration) (domain.RetrievalStrategy, error) {
	set, err := s.settings.GetSettings(ctx, tenant)
	if err != nil {
		return domain.RetrievalStrategy{}, err
	}
	return domain.DefaultStrategy(set, c), nil
}

// Validate checks st and reports its risks, judged also on the tenant's
// recent traffic; it returns how many recent queries that was.
func (s *Strategies) Validate(ctx context.Context, tenant domain.TenantID, st domain.RetrievalStrategy) ([]domain.RiskFinding, int, error) {
	if err := st.Validate(); err != nil {
		return nil, 0, err
	}
	recent, err := s.store.RecentRetrievals(ctx, tenant, recentForRisks)
	if err != nil {
		return nil, 0, err
	}
	cal, err := s.Calibration(ctx, tenant)
	if err != nil {
		return nil, 0, err
	}
	return domain.AssessStrategy(st, recent, cal), len(recent), nil
}

// Switch makes st active for the next request and audits it with its
// risks (which are reported, not blocking). keyID is the caller's key.
func (s *Strategies) Switch(ctx context.Context, tenant domain.TenantID, keyID string, st domain.RetrievalStrategy) (Change, error) {
	findings, _, err := s.Validate(ctx, tenant, st)
	if err != nil {
		return Change{}, err
	}
	return s.change(ctx, tenant, keyID, "switch", &st, findings)
}

// Rollback returns the tenant to the default strategy.
func (s *Strategies) Rollback(ctx context.Context, tenant domain.TenantID, keyID string) (Change, error) {
	return s.change(ctx, tenant, keyID, "rollback", nil, nil)
}

func (s *Strategies) change(ctx context.Context, tenant domain.TenantID, keyID, action string, to *domain.RetrievalStrategy, findings []domain.RiskFinding) (Change, error) {
	prev, err := s.Current(ctx, tenant)
	if err != nil {
		return Change{}, err
	}
	next := deref(to)
	if to == nil {
		if next, err = s.Default(ctx, tenant); err != nil {
			return Change{}, err
		}
	}
	at := s.now().UTC()
	err = s.store.SetStrategy(ctx, tenant, to, domain.StrategyAudit{
		ID: domain.NewID("aud_"), TenantID: tenant, Action: action, KeyID: keyID, At: at,
		From: prev, To: next, Findings: findings,
	})
	if err != nil {
		return Change{}, err
	}
	s.inv.Drop(domain.ConfigStrategy, tenant)
	return Change{Strategy: next, Previous: prev, Findings: findings, At: at}, nil
}

// Audit lists the tenant's strategy changes newest first.
func (s *Strategies) Audit(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.StrategyAudit], error) {
	return s.store.ListStrategyAudit(ctx, tenant, p)
}

// Metrics sums up the tenant's retrievals per strategy.
func (s *Strategies) Metrics(ctx context.Context, tenant domain.TenantID) ([]domain.StrategyMetrics, error) {
	return s.store.RetrievalMetrics(ctx, tenant)
}

func deref(st *domain.RetrievalStrategy) domain.RetrievalStrategy {
	if st == nil {
		return domain.RetrievalStrategy{}
	}
	return *st
}
