// Package chunkcache reads chunks by id (their text, passage and document
// name: what an answer quotes) through a memory-bounded cache in front of
// PostgreSQL. Customers ask about the same few passages of a knowledge
// base again and again, so most messages find their evidence here and
// make no round trip for it.
//
// Chunk ids are positional (a document's n-th chunk keeps its id when the
// document is indexed again with new text), so the cache follows the
// index changes every replica announces (store/pg): a change to any
// document of a tenant drops all of that tenant's chunks, and a new
// listening connection (changes may have been missed) drops everything. A
// read that raced a drop is not kept. Between a change's commit and its
// announcement's arrival, a replica may still quote the text before it:
// the search index itself follows the same announcements.
package chunkcache

import (
	"context"
	"sync"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/lru"
)

// DefaultMaxBytes is the cache's bound when none is given.
const DefaultMaxBytes = 64 << 20

// Reader reads chunks by id (*pg.Store).
type Reader interface {
	ChunksByIDs(ctx context.Context, tenant domain.TenantID, ids []string) ([]domain.Chunk, error)
}

// ChangeSource announces the index changes of every replica (*pg.Store).
type ChangeSource interface {
	ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func())
}

// Cache is a Reader with a cache of the chunks read, least recently used
// out first past its bound. It is safe for concurrent use. Its chunks are
// shared: callers must not change their maps or slices.
type Cache struct {
	src Reader

	mu     sync.Mutex
	chunks *lru.Map[key, domain.Chunk] // costs: size
	// byTenant lists the ids each tenant has cached, for Drop.
	byTenant map[domain.TenantID]map[string]struct{}
	// epoch counts the drops of every tenant (resync), gen each tenant's
	// own: a read keeps what it read only when neither moved meanwhile.
	epoch uint64
	gen   map[domain.TenantID]uint64
	// lookups counts each chunk looked up as a hit or a miss.
	lookups domain.LookupCounter
}

// key is a cached chunk's: ids are unique, but a tenant's are only its own.
type key struct {
	tenant domain.TenantID
	id     string
}

// New returns a cache over src holding at most maxBytes (estimated) of
// chunks; maxBytes ≤ 0 is DefaultMaxBytes.
func New(src Reader, maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	c := &Cache{src: src, byTenant: map[domain.TenantID]map[string]struct{}{}, gen: map[domain.TenantID]uint64{}}
	c.chunks = lru.New(maxBytes, func(k key, _ domain.Chunk) { c.forget(k) })
	return c
}

// CountLookups makes the cache count each chunk looked up with l; call it
// before the cache is used.
func (c *Cache) CountLookups(l domain.LookupCounter) { c.lookups = l }

// ChunksByIDs implements domain.DocumentStore's method of that name: the
// chunks with these ids that exist in the tenant, in no particular order.
// Only the ones not cached are read, in one query.
func (c *Cache) ChunksByIDs(ctx context.Context, tenant domain.TenantID, ids []string) ([]domain.Chunk, error) {
	out := make([]domain.Chunk, 0, len(ids))
	var missing []string
	c.mu.Lock()
	for _, id := range ids {
		if ch, ok := c.chunks.Get(key{tenant, id}); ok {
			out = append(out, ch)
			continue
		}
		missing = append(missing, id)
	}
	epoch, gen := c.epoch, c.gen[tenant]
	c.mu.Unlock()
	c.count(len(ids)-len(missing), len(missing))
	if len(missing) == 0 {
		return out, nil
	}
	read, err := c.src.ChunksByIDs(ctx, tenant, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.epoch == epoch && c.gen[tenant] == gen {
		for _, ch := range read {
			c.putLocked(tenant, ch)
		}
	}
	c.mu.Unlock()
	return append(out, read...), nil
}

func (c *Cache) count(hits, misses int) {
	for range hits {
		c.lookups.Count(true)
	}
	for range misses {
		c.lookups.Count(false)
	}
}

// putLocked caches ch, which may evict others (forget).
func (c *Cache) putLocked(tenant domain.TenantID, ch domain.Chunk) {
	held := c.byTenant[tenant]
	if held == nil {
		held = map[string]struct{}{}
		c.byTenant[tenant] = held
	}
	held[ch.ID] = struct{}{}
	c.chunks.Put(key{tenant, ch.ID}, ch, size(ch))
}

// forget takes an evicted chunk out of byTenant.
func (c *Cache) forget(k key) {
	held := c.byTenant[k.tenant]
	delete(held, k.id)
	if len(held) == 0 {
		delete(c.byTenant, k.tenant)
	}
}

// Drop forgets a tenant's chunks.
func (c *Cache) Drop(tenant domain.TenantID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen[tenant]++
	for id := range c.byTenant[tenant] {
		c.chunks.Remove(key{tenant, id})
	}
	delete(c.byTenant, tenant)
}

// DropAll forgets every tenant's chunks.
func (c *Cache) DropAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.chunks.Clear()
	c.byTenant = map[domain.TenantID]map[string]struct{}{}
	c.gen = map[domain.TenantID]uint64{}
}

// Follow drops a tenant's chunks on every change to its documents or
// knowledge bases, made by any replica, and everything when src listens
// anew, until ctx ends (run it in the background).
func (c *Cache) Follow(ctx context.Context, src ChangeSource) {
	src.ListenIndexChanges(ctx, func(ch domain.IndexChange) { c.Drop(ch.Tenant) }, c.DropAll)
}

// Stats is what the cache holds.
type Stats struct {
	Chunks int
	Bytes  int64
}

// Stats returns what the cache holds now.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Chunks: c.chunks.Len(), Bytes: c.chunks.Cost()}
}

// itemOverhead estimates a cached chunk's fixed cost: the struct, its
// list element and map entries, its ids.
const itemOverhead = 512

// size estimates the bytes a cached chunk holds.
func size(ch domain.Chunk) int64 {
	n := itemOverhead + len(ch.Text) + len(ch.Context) + len(ch.DocumentName) + len(ch.ID) + len(ch.DocumentID) + len(ch.KBID)
	for _, h := range ch.HeadingPath {
		n += len(h) + 16
	}
	n += 64 * len(ch.Metadata)
	return int64(n)
}
