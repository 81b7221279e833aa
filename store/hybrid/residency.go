package hybrid

import (
	"container/list"
	"context"
	"sync"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/lexical"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// entry is one tenant in the index: being loaded, then loaded. Each has
// indexes of its own, so an evicted or resynced entry is simply let go:
// whoever still uses it finishes on it, and a new entry loads afresh,
// never mixing with the old one's late writes.
type entry struct {
	id domain.TenantID
	// ready is closed when the load ends; err, set before, says why it
	// failed.
	ready chan struct{}
	err   error
	// vectors and words are set before ready is closed and never change.
	vectors *memindex.Index
	words   *lexical.Index
	// writing serialises the writes to the indexes, each with the database
	// reads it makes: a change read before another write committed is
	// applied before that write, never over it. (Every write is announced
	// and read again after its commit, so the indexes would come right
	// anyway; this keeps a replica's own writes visible in between.)
	writing sync.Mutex

	// Guarded by Index.mu.
	loaded bool
	// gone: evicted or resynced, out of the map and of the count.
	gone bool
	// pins counts the searches and writes using the indexes now.
	pins   int
	bytes  int64         // as counted in Index.resident
	share  int64         // the tenant's share of the bound, 0 for none
	mapped int64         // as counted in Index.mapped
	elem   *list.Element // in Index.lru once loaded
	// closed: the vectors were closed (gone and no longer pinned).
	closed bool
	// pending are the changes that arrived during the load, applied when
	// it is done; resync says some may have been missed: load again.
	pending []domain.IndexChange
	resync  bool
}

// use returns tenant id's entry, loaded and pinned (release it after),
// starting its load unless one is under way and waiting for it: the
// searches that arrive during a load share it.
func (x *Index) use(ctx context.Context, id domain.TenantID) (*entry, error) {
	if id == "" {
		return nil, domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	}
	x.mu.Lock()
	t := x.tenants[id]
	if t == nil {
		t = &entry{id: id, ready: make(chan struct{})}
		x.tenants[id] = t
		x.loads.Go(func() { x.load(t) })
	}
	t.pins++
	if t.loaded {
		x.lru.MoveToFront(t.elem)
	}
	x.mu.Unlock()
	select {
	case <-t.ready:
	case <-ctx.Done():
		x.release(t)
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "The search index was still loading when the search was cancelled or ran out of time.", Err: ctx.Err()}
	}
	if t.err != nil {
		x.release(t)
		return nil, t.err
	}
	return t, nil
}

// release unpins t, and evicts what the bound no longer holds.
func (x *Index) release(t *entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.unpinLocked(t)
	x.evictLocked()
}

// unpinLocked unpins t, closing it if it was the last use of a dropped
// tenant.
func (x *Index) unpinLocked(t *entry) {
	t.pins--
	x.closeUnusedLocked(t)
}

// closeUnusedLocked closes the vectors of t once it is gone and no search
// or write uses it, giving back their mapped memory. It runs in the
// background: unmapping gigabytes takes a while, which the search whose
// release evicted t should not wait for. After Index.Close it runs at
// once, in the last release.
func (x *Index) closeUnusedLocked(t *entry) {
	if t.gone && t.pins == 0 && !t.closed {
		t.closed = true
		if x.closed {
			t.vectors.Close()
			return
		}
		x.closing.Go(t.vectors.Close)
	}
}

// write runs fn on tenant id's indexes if it is loaded, pinned meanwhile,
// and counts its bytes again after. A tenant being loaded gets changes
// queued instead, which its load applies when done (fn could race with
// the rows it streams); one not resident gets nothing, since it loads
// fresh on use.
func (x *Index) write(id domain.TenantID, changes []domain.IndexChange, fn func(*entry) error) error {
	x.mu.Lock()
	t := x.tenants[id]
	switch {
	case t == nil:
		x.mu.Unlock()
		return nil
	case !t.loaded:
		t.pending = append(t.pending, changes...)
		x.mu.Unlock()
		return nil
	}
	t.pins++
	x.mu.Unlock()
	t.writing.Lock()
	err := fn(t)
	t.writing.Unlock()
	mem := t.vectors.Memory(id)
	bytes := mem.Heap + t.words.Bytes(id)
	share := x.shareOf(x.base, id)
	x.mu.Lock()
	defer x.mu.Unlock()
	if !t.gone {
		x.resident += bytes - t.bytes
		x.mapped += mem.Mapped - t.mapped
		t.bytes, t.mapped, t.share = bytes, mem.Mapped, share
	}
	x.unpinLocked(t)
	x.evictLocked()
	return err
}

// overShare is what t holds beyond its share (0 when within it).
func (t *entry) overShare() int64 {
	if t.share > 0 && t.bytes > t.share {
		return t.bytes - t.share
	}
	return 0
}

// evictLocked drops the least recently used tenants not in use while the
// resident bytes are past the bound, but never the most recently used
// one: a tenant larger than the bound alone stays, rather than loading
// again for every search. The tenants held beyond their share go first;
// then the others, but only for the bytes held within shares: what a
// tenant still holds beyond its share (in use, or the most recent) takes
// no other tenant's place.
func (x *Index) evictLocked() {
	if x.resident <= x.limit {
		return
	}
	for e := x.lru.Back(); x.resident > x.limit && e != nil && e != x.lru.Front(); {
		prev := e.Prev()
		if t := e.Value.(*entry); t.pins == 0 && t.overShare() > 0 {
			x.dropLocked(t)
			x.stats.Evictions++
		}
		e = prev
	}
	var excess int64
	for e := x.lru.Front(); e != nil; e = e.Next() {
		excess += e.Value.(*entry).overShare()
	}
	for e := x.lru.Back(); x.resident-excess > x.limit && e != nil && e != x.lru.Front(); {
		prev := e.Prev()
		if t := e.Value.(*entry); t.pins == 0 {
			x.dropLocked(t)
			x.stats.Evictions++
		}
		e = prev
	}
}

// shareOf asks for tenant's share (0 without Options.Shares). It runs
// outside the lock: the answer may take a database read.
func (x *Index) shareOf(ctx context.Context, tenant domain.TenantID) int64 {
	if x.shares == nil {
		return 0
	}
	return max(x.shares.IndexShare(ctx, tenant), 0)
}

// dropLocked forgets the loaded tenant t: its next use loads it again.
// Its vectors are closed once no search or write uses them.
func (x *Index) dropLocked(t *entry) {
	if t.gone {
		return
	}
	t.gone = true
	x.lru.Remove(t.elem)
	x.resident -= t.bytes
	x.mapped -= t.mapped
	x.closeUnusedLocked(t)
	if x.tenants[t.id] == t {
		delete(x.tenants, t.id)
	}
}

// forget drops tenant id if it is loaded, as when a change of it could not
// be followed; a load under way starts again.
func (x *Index) forget(id domain.TenantID) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.forgetLocked(x.tenants[id])
}

// resync forgets every tenant: changes may have been missed.
func (x *Index) resync() {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, t := range x.tenants {
		x.forgetLocked(t)
	}
}

// forgetLocked drops t if loaded, or has its load start again.
func (x *Index) forgetLocked(t *entry) {
	switch {
	case t == nil:
	case t.loaded:
		x.dropLocked(t)
	default:
		t.resync = true
	}
}
