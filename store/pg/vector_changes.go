package pg

import (
	"context"
	"encoding/json"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// vectorChannel carries the changes of stored vectors to every replica.
const vectorChannel = "assistant_vectors"

// VectorChange says which vectors changed: a document's (re-indexed or
// deleted) or a whole knowledge base's (deleted).
type VectorChange struct {
	Origin     string          `json:"o"`
	Tenant     domain.TenantID `json:"t"`
	DocumentID string          `json:"d,omitempty"`
	KBID       string          `json:"k,omitempty"`
	Deleted    bool            `json:"x,omitempty"`
}

func (s *Store) notifyVectors(ctx context.Context, q *db.Queries, c VectorChange) error {
	c.Origin = s.origin
	payload, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return q.NotifyVectors(ctx, string(payload))
}

// ListenVectorChanges calls fn for every change of stored vectors made by
// another process, until ctx ends.
func (s *Store) ListenVectorChanges(ctx context.Context, fn func(VectorChange)) {
	s.listen(ctx, vectorChannel, func(payload string) {
		var c VectorChange
		if json.Unmarshal([]byte(payload), &c) == nil && c.Origin != s.origin {
			fn(c)
		}
	})
}
