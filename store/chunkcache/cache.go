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
	"container/list"
	"context"
	"sync"

	"github.com/cs-assistant/assistant/domain"
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
	max int64

	mu    sync.Mutex
	lru   *list.List // of *item, most recently used first
	items map[domain.TenantID]map[string]*list.Element
	bytes int64
	// epoch counts the drops of every tenant (resync), gen each tenant's
	// own: a read keeps what it read only when neither moved meanwhile.
	epoch uint64
	gen   map[domain.TenantID]uint64
	// lookups counts each chunk looked up as a hit or a miss.
	lookups domain.LookupCounter
}

type item struct {
	tenant domain.TenantID
	chunk  domain.Chunk
	size   int64
}

// New returns a cache over src holding at most maxBytes (estimated) of
// chunks; maxBytes ≤ 0 is DefaultMaxBytes.
func New(src Reader, maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Cache{src: src, max: maxBytes, lru: list.New(), items: map[domain.TenantID]map[string]*list.Element{},
		gen: map[domain.TenantID]uint64{}}
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
	held := c.items[tenant]
	for _, id := range ids {
		if e, ok := held[id]; ok {
			c.lru.MoveToFront(e)
			out = append(out, e.Value.(*item).chunk)
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
		c.evictLocked()
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

func (c *Cache) putLocked(tenant domain.TenantID, ch domain.Chunk) {
	held := c.items[tenant]
	if held == nil {
		held = map[string]*list.Element{}
		c.items[tenant] = held
	}
	if e, ok := held[ch.ID]; ok {
		c.removeLocked(e)
	}
	it := &item{tenant: tenant, chunk: ch, size: size(ch)}
	held[ch.ID] = c.lru.PushFront(it)
	c.bytes += it.size
}

func (c *Cache) removeLocked(e *list.Element) {
	it := c.lru.Remove(e).(*item)
	c.bytes -= it.size
	held := c.items[it.tenant]
	delete(held, it.chunk.ID)
	if len(held) == 0 {
		delete(c.items, it.tenant)
	}
}

func (c *Cache) evictLocked() {
	for c.bytes > c.max {
		c.removeLocked(c.lru.Back())
	}
}

// Drop forgets a tenant's chunks.
func (c *Cache) Drop(tenant domain.TenantID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen[tenant]++
	for _, e := range c.items[tenant] {
		c.removeLocked(e)
	}
}

// DropAll forgets every tenant's chunks.
func (c *Cache) DropAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.lru.Init()
	c.items = map[domain.TenantID]map[string]*list.Element{}
	c.gen = map[domain.TenantID]uint64{}
	c.bytes = 0
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
	return Stats{Chunks: c.lru.Len(), Bytes: c.bytes}
}

// itemOverhead estimates a cached chunk's fixed cost: the struct, its
// list element and map entry, its ids.
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
