package guard

import (
	"maps"
	"sync"
	"sync/atomic"
)

// Set holds the current Guard of each tenant. Readers never wait: Get
// loads an immutable map through an atomic pointer. Put and Drop copy the
// map, change the copy and swap it in (copy-on-write), one writer at a
// time, so a configuration change never disturbs a check in flight, which
// keeps the Guard it started with. Changes are rare and tenants few
// enough for the copy to be cheap. The zero Set is empty and ready.
type Set struct {
	guards atomic.Pointer[map[string]*Guard]
	// mu serialises writers, so two changes at once do not lose one.
	mu sync.Mutex
}

// Get returns the tenant's Guard, false when it has none.
func (s *Set) Get(tenant string) (*Guard, bool) {
	m := s.guards.Load()
	if m == nil {
		return nil, false
	}
	g, ok := (*m)[tenant]
	return g, ok
}

// Put installs (or replaces) the tenant's Guard.
func (s *Set) Put(tenant string, g *Guard) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := map[string]*Guard{}
	if m := s.guards.Load(); m != nil {
		next = maps.Clone(*m)
	}
	next[tenant] = g
	s.guards.Store(&next)
}

// Drop removes the tenant's Guard.
func (s *Set) Drop(tenant string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.guards.Load()
	if m == nil {
		return
	}
	if _, ok := (*m)[tenant]; !ok {
		return
	}
	next := maps.Clone(*m)
	delete(next, tenant)
	s.guards.Store(&next)
}
