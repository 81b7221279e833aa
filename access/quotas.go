package access

import (
	"context"
	"sync"

	"github.com/cs-assistant/assistant/domain"
)

// Quotas reports each tenant's quotas with their use, holds every API key
// to its tenant's quota of open event streams, and tells the embedded
// search index each tenant's share of its memory. The quotas of what a
// tenant stores are held by the store, inside the writes they count
// (store/pg.WithQuotas), under the same policy.
type Quotas struct {
	policy  domain.QuotaPolicy
	store   domain.QuotaStore
	tenants *Tenants

	mu sync.Mutex
	// open counts the event streams open in this process, per tenant and
	// API key; a count that falls to 0 is deleted.
	open map[domain.TenantID]map[string]int64
}

// NewQuotas returns the quota service of policy, counting what tenants
// hold in store and reading their overrides through tenants.
func NewQuotas(policy domain.QuotaPolicy, store domain.QuotaStore, tenants *Tenants) *Quotas {
	return &Quotas{policy: policy, store: store, tenants: tenants, open: map[domain.TenantID]map[string]int64{}}
}

// Usage returns each of t's quotas with its use now. The streams' use is
// the most that any one API key has open in t, in this process.
func (q *Quotas) Usage(ctx context.Context, t domain.Tenant) (domain.QuotaUsage, error) {
	held, err := q.store.TenantHoldings(ctx, t.ID)
	if err != nil {
		return domain.QuotaUsage{}, err
	}
	u := domain.QuotaUsage{Limits: q.policy.Limits(t), Used: held.Used(q.policy)}
	q.mu.Lock()
	for _, n := range q.open[t.ID] {
		u.Used[domain.QuotaStreamsPerKey] = max(u.Used[domain.QuotaStreamsPerKey], n)
	}
	q.mu.Unlock()
	return u, nil
}

// OpenStream counts an event stream of the request's API key in its
// tenant until the returned close is called (once, when the stream ends).
// Returns CodeQuotaExceeded when the key has as many open in the tenant
// as the tenant's streams_per_key quota allows. A request without a key
// or a tenant is not counted.
func (q *Quotas) OpenStream(ctx context.Context) (close func(), err error) {
	p, keyed := domain.PrincipalFrom(ctx)
	t, inTenant := domain.TenantRecordFrom(ctx)
	if !keyed || !inTenant {
		return func() {}, nil
	}
	limit := q.policy.Limits(t)[domain.QuotaStreamsPerKey]
	q.mu.Lock()
	defer q.mu.Unlock()
	keys := q.open[t.ID]
	if err := domain.CheckQuota(domain.QuotaStreamsPerKey, limit, keys[p.KeyID], 1); err != nil {
		return nil, err
	}
	if keys == nil {
		keys = map[string]int64{}
		q.open[t.ID] = keys
	}
	keys[p.KeyID]++
	var once sync.Once
	return func() { once.Do(func() { q.closeStream(t.ID, p.KeyID) }) }, nil
}

func (q *Quotas) closeStream(tenant domain.TenantID, key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	keys := q.open[tenant]
	if keys[key]--; keys[key] <= 0 {
		delete(keys, key)
	}
	if len(keys) == 0 {
		delete(q.open, tenant)
	}
}

// IndexShare returns tenant's index memory quota, its share of the
// embedded search index (store/hybrid.Shares); 0, no share, when the
// tenant cannot be read.
func (q *Quotas) IndexShare(ctx context.Context, tenant domain.TenantID) int64 {
	t, err := q.tenants.Resolve(ctx, tenant)
	if err != nil {
		return 0
	}
	return q.policy.Limits(t)[domain.QuotaIndexMemoryBytes]
}
