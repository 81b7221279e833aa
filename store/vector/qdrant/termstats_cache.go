package qdrant

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// DefaultTermCounts bounds a TermStatsCache when no bound is given: 32 Ki
// counts across all tenants, about 7 MiB when full (some 220 bytes a
// count, with its key, list element and map slot). Counts live a minute,
// so it holds every distinct (tenant, term) pair that fifty messages a
// second of ten terms each, none alike, ask for in that minute; and a
// drop of a tenant, which scans every count, takes half a millisecond
// when it is full.
const DefaultTermCounts = 1 << 15

// ChangeSource announces the index changes of every replica (*pg.Store,
// or the feed that shares its listener).
type ChangeSource interface {
	ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func())
}

// TermStatsCache is a Store's lexical side with the counts of TermStats
// kept: a message asks Qdrant for none of the counts a previous one of its
// tenant made, and for the others in one batch as Store.TermStats does.
// The counts change only when the tenant's documents do, so it follows
// the index changes every replica announces (Follow): a change drops the
// tenant's counts, a new listening connection (changes may have been
// missed) drops everything, and a count under way when its tenant is
// dropped is not kept. The TTL bounds how stale a count can be when an
// announcement is lost. It is safe for concurrent use.
type TermStatsCache struct {
	store  *Store
	counts *tenantcache.Cache[countKey, uint64]
}

var _ domain.LexicalSearcher = (*TermStatsCache)(nil)

// countKey is one count of a tenant's points: all of them, or those that
// list term.
type countKey struct {
	tenant domain.TenantID
	term   string
	all    bool
}

// NewTermStatsCache returns s's lexical side keeping at most maxCounts
// counts (DefaultTermCounts when not positive) for ttl each
// (tenantcache.DefaultTTL when not positive).
func NewTermStatsCache(s *Store, ttl time.Duration, maxCounts int) *TermStatsCache {
	if maxCounts <= 0 {
		maxCounts = DefaultTermCounts
	}
	return &TermStatsCache{store: s, counts: tenantcache.New(tenantcache.Config[countKey, uint64]{
		Name: "term counts", TTL: ttl, MaxEntries: maxCounts,
		Load: func(ctx context.Context, k countKey) (uint64, error) {
			return s.countTerm(ctx, k.tenant, k.term, k.all)
		},
		Tenant: func(k countKey) domain.TenantID { return k.tenant },
	})}
}

// SearchWords implements domain.LexicalSearcher: the Store's, uncached.
func (c *TermStatsCache) SearchWords(ctx context.Context, tenant domain.TenantID, q domain.LexicalQuery) ([]domain.LexicalHit, error) {
	return c.store.SearchWords(ctx, tenant, q)
}

// TermStats implements domain.LexicalSearcher as Store.TermStats does,
// counting only what is not kept. Failed counts are not kept.
func (c *TermStatsCache) TermStats(ctx context.Context, tenant domain.TenantID, terms []string) ([]domain.TermStat, error) {
	return termStats(ctx, tenant, terms, func(ctx context.Context, term string, all bool) (uint64, error) {
		n, err := c.counts.Get(ctx, countKey{tenant: tenant, term: term, all: all})
		// A caller that stops waiting gets its context's error from the
		// cache: mapped as the store maps its own (unavailable).
		return n, wrapErr("count", err)
	})
}

// Drop forgets a tenant's counts, after a change of its documents.
func (c *TermStatsCache) Drop(tenant domain.TenantID) { c.counts.Drop(tenant) }

// DropAll forgets every tenant's counts.
func (c *TermStatsCache) DropAll() { c.counts.DropAll() }

// Follow drops a tenant's counts on every change to its documents or
// knowledge bases, made by any replica, and everything when src listens
// anew, until ctx ends (run it in the background).
func (c *TermStatsCache) Follow(ctx context.Context, src ChangeSource) {
	src.ListenIndexChanges(ctx, func(ch domain.IndexChange) { c.Drop(ch.Tenant) }, c.DropAll)
}

// CountLookups makes the cache count each count it is asked for as a hit
// or a miss with l; call it before the cache is used.
func (c *TermStatsCache) CountLookups(l domain.LookupCounter) { c.counts.CountLookups(l) }
