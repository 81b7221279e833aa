package pg

import (
	"context"
	"encoding/json"
	"time"

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
// another process, until ctx ends. Documents indexed while no connection
// listened (a database restart, a network break) are handed to fn when
// the connection is back (vectorsWrittenSince); this process's own are
// among them then, which re-reading them makes harmless.
func (s *Store) ListenVectorChanges(ctx context.Context, fn func(VectorChange)) {
	s.listen(ctx, vectorChannel, func(payload string) {
		var c VectorChange
		if json.Unmarshal([]byte(payload), &c) == nil && c.Origin != s.origin {
			fn(c)
		}
	}, s.vectorsWrittenSince(fn))
}

// vectorsWrittenSince catches a vector listener up: a change for every
// document whose vectors were written since then, in every tenant. A
// deletion leaves no row to find: a document deleted while no connection
// listened stays in this process's index until it restarts, with no chunk
// text behind it. The query scans chunk_vectors, which is acceptable
// because it runs once per connection.
func (s *Store) vectorsWrittenSince(fn func(VectorChange)) catchUp {
	return func(ctx context.Context, since time.Time) error {
		rows, err := s.q.ListVectorDocumentsSince(ctx, since)
		if err != nil {
			return err
		}
		for _, r := range rows {
			fn(VectorChange{Tenant: domain.TenantID(r.TenantID), DocumentID: r.DocumentID})
		}
		return nil
	}
}
