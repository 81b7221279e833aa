// Package shardmap keeps the embedded indexes' shards (store/lexical,
// store/vector/memindex), one per tenant: found under a read lock of the
// map, made on a tenant's first write. The map's lock guards the map, not
// the shards, which lock themselves: searches of one tenant run in
// parallel, and writes of one tenant never wait for another's.
package shardmap

import (
	"sync"

	"github.com/cs-assistant/assistant/domain"
)

// Map holds one shard of type S (a pointer) per tenant. It is safe for
// concurrent use.
type Map[S comparable] struct {
	mu     sync.RWMutex
	shards map[domain.TenantID]S
	make   func() S
}

// New returns an empty map whose shards make makes.
func New[S comparable](make func() S) *Map[S] {
	return &Map[S]{shards: map[domain.TenantID]S{}, make: make}
}

// Get returns tenant's shard, made first when make is set; without it, the
// zero S (nil) when the tenant has none.
func (m *Map[S]) Get(tenant domain.TenantID, make bool) S {
	m.mu.RLock()
	s, ok := m.shards[tenant]
	m.mu.RUnlock()
	if ok || !make {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok = m.shards[tenant]; !ok {
		s = m.make()
		m.shards[tenant] = s
	}
	return s
}

// With calls fn with tenant's shard and returns what it says, or 0 when
// the tenant has none (a removal that found nothing to remove).
func (m *Map[S]) With(tenant domain.TenantID, fn func(S) int) int {
	var none S
	if s := m.Get(tenant, false); s != none {
		return fn(s)
	}
	return 0
}

// TakeAll empties the map and returns the shards it held.
func (m *Map[S]) TakeAll() map[domain.TenantID]S {
	m.mu.Lock()
	defer m.mu.Unlock()
	all := m.shards
	m.shards = map[domain.TenantID]S{}
	return all
}
