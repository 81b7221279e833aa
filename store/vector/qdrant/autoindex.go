package qdrant

import (
	"context"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// AutoIndexed is the Store that also creates a payload index for each
// metadata key the first time an upsert carries it, so filters on
// metadata stay indexed without anyone declaring them to Qdrant.
type AutoIndexed struct {
	*Store
	mu   sync.Mutex
	seen map[string]bool
}

var _ domain.VectorStore = (*AutoIndexed)(nil)

// NewAutoIndexed wraps s.
func NewAutoIndexed(s *Store) *AutoIndexed {
	return &AutoIndexed{Store: s, seen: make(map[string]bool)}
}

// Upsert implements domain.VectorStore.
func (a *AutoIndexed) Upsert(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	for _, r := range recs {
		for key, v := range r.Metadata {
			kind, ok := kindOfValue(v)
			if !ok || a.known(key) {
				continue
			}
			if err := a.EnsureFieldIndex(ctx, key, kind); err != nil {
				return err
			}
			a.mu.Lock()
			a.seen[key] = true
			a.mu.Unlock()
		}
	}
	return a.Store.Upsert(ctx, tenant, recs)
}

func (a *AutoIndexed) known(key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.seen[key]
}

// kindOfValue picks the index a metadata value needs.
func kindOfValue(v any) (FieldKind, bool) {
	switch v.(type) {
	case string, []string:
		return FieldKeyword, true
	case float64:
		return FieldFloat, true
	case bool:
		return FieldBool, true
	case time.Time:
		return FieldDatetime, true
	}
	return "", false
}
