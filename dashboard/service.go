package dashboard

import (
	"context"
	"log/slog"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Roll-up timing.
const (
	// RollUpEvery is how often Run rolls up what is older than
	// RollUpGrace: the stats then read at most about 11 minutes of
	// records live, whatever the range.
	RollUpEvery = time.Minute
	// RollUpGrace is how old a record must be to be rolled up. Records are
	// written up to a reply's generation time after their timestamp (an
	// intent hit carries the customer message's time, a guard hit its
	// check's), and one written after the mark passed its time would never
	// be counted.
	RollUpGrace = 10 * time.Minute
)

// Service reads the dashboard and keeps its roll-ups.
type Service struct {
	store domain.DashboardStore
	log   *slog.Logger
	now   func() time.Time
}

// New returns the service; now is the clock (nil: time.Now).
func New(store domain.DashboardStore, log *slog.Logger, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, log: log, now: now}
}

// Stats returns the figures of the range r asks for. Returns
// CodeValidation for a range out of bounds.
func (s *Service) Stats(ctx context.Context, tenant domain.TenantID, r Request) (Stats, error) {
	q, err := r.query(s.now())
	if err != nil {
		return Stats{}, err
	}
	snap, err := s.store.DashboardSnapshot(ctx, tenant, q)
	if err != nil {
		return Stats{}, err
	}
	st := fold(q, snap)
	if len(st.TopIntentRules) > 0 {
		ids := make([]string, len(st.TopIntentRules))
		for i, r := range st.TopIntentRules {
			ids[i] = r.RuleID
		}
		names, err := s.store.IntentRuleNames(ctx, tenant, ids)
		if err != nil {
			return Stats{}, err
		}
		for i, r := range st.TopIntentRules {
			if name, ok := names[r.RuleID]; ok {
				st.TopIntentRules[i].Name = &name
			}
		}
	}
	return st, nil
}

// Run rolls up now and every RollUpEvery until ctx ends. Any
// number of replicas may run it (see domain.DashboardStore.RollUpDashboard).
func (s *Service) Run(ctx context.Context) {
	tick := time.NewTicker(RollUpEvery)
	defer tick.Stop()
	for {
		if _, err := s.RollUp(ctx, s.now()); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "dashboard roll-up failed; the next one catches up", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// RollUp rolls up every tenant's records older than RollUpGrace at now
// and returns how many facts it added. A tenant's failure is logged and
// the others go on; the first error is returned.
func (s *Service) RollUp(ctx context.Context, now time.Time) (int, error) {
	until := now.Add(-RollUpGrace).UTC()
	tenants, err := s.store.DashboardTenants(ctx)
	if err != nil {
		return 0, err
	}
	stored := 0
	var first error
	for _, t := range tenants {
		n, err := s.store.RollUpDashboard(ctx, t, until)
		stored += n
		if err != nil {
			if ctx.Err() != nil {
				return stored, err
			}
			s.log.WarnContext(ctx, "dashboard roll-up of a tenant failed", "tenant", t, "err", err)
			if first == nil {
				first = err
			}
		}
	}
	return stored, first
}
