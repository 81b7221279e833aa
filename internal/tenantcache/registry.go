package tenantcache

import (
	"sync"

	"github.com/cs-assistant/assistant/domain"
)

// Dropper is what a Registry drops: a cache of tenants' state (a Cache).
type Dropper interface {
	Drop(tenant domain.TenantID)
}

// Registry routes each change of a tenant's state to the caches that keep
// state of that kind. Both a local write (the service that wrote calls
// Drop) and another replica's change notification (the listener calls
// Drop) go through it, so a new cache needs only to register. The zero
// Registry is empty and ready; it is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	caches map[domain.ConfigKind][]Dropper
}

var _ domain.Invalidator = (*Registry)(nil)

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// Register makes a change of kind drop d.
func (r *Registry) Register(kind domain.ConfigKind, d Dropper) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.caches == nil {
		r.caches = make(map[domain.ConfigKind][]Dropper)
	}
	r.caches[kind] = append(r.caches[kind], d)
}

// Drop implements domain.Invalidator: it drops tenant from every cache
// registered under kind. A kind nothing caches (script flows) drops
// nothing.
func (r *Registry) Drop(kind domain.ConfigKind, tenant domain.TenantID) {
	r.mu.RLock()
	caches := r.caches[kind]
	r.mu.RUnlock()
	for _, d := range caches {
		d.Drop(tenant)
	}
}
