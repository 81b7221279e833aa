package lexical

import (
	"sync"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/shardmap"
)

// Doc is one chunk to index.
type Doc struct {
	ChunkID    string
	KBID       string
	DocumentID string
	// Text is what is searched; it is cut into terms and not kept.
	Text string
	// Metadata holds the chunk's filterable metadata: string, number,
	// bool, time.Time or []string values (nil: absent).
	Metadata map[string]any
}

// Index is an in-memory BM25 index for all tenants, one shard per tenant,
// each behind its own RWMutex: searches of a tenant run in parallel, and
// writes of one tenant never wait for another's. It is safe for concurrent
// use.
type Index struct {
	shards *shardmap.Map[*shard]

	// scratch recycles the working memory of searches (cursors, window,
	// top-k heap): allocating it per search would cost more than a short
	// query.
	scratch sync.Pool

	// stems caches the stems of the words indexed texts hold, for all
	// tenants: stemming took two thirds of the time of indexing prose.
	stems *analysis.Stems
}

// New returns an empty index.
func New() *Index {
	return &Index{shards: shardmap.New(newShard), stems: analysis.NewStems(analysis.StemCacheWords)}
}

// Len returns the number of chunks of tenant.
func (x *Index) Len(tenant domain.TenantID) int {
	s := x.shards.Get(tenant, false)
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.live()
}

// Upsert indexes docs in tenant's shard, replacing any chunk with the same
// ChunkID (re-running an ingestion job never duplicates chunks; within
// docs, the last of a ChunkID wins). The batch is checked first and
// applied whole or not at all: every doc needs a ChunkID, and its metadata
// values must be strings, numbers, booleans, times or string arrays.
// Errors are CodeValidation.
//
// Texts are cut into terms before the shard is locked; the lock is held
// only to insert them, but a bulk load should still come in batches of a
// few thousand so that searches interleave.
func (x *Index) Upsert(tenant domain.TenantID, docs []Doc) error {
	if tenant == "" {
		return domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	}
	prep := make([]prepared, len(docs))
	counts := make(map[string]int32)
	var tokens []string
	for i := range docs {
		d := &docs[i]
		if d.ChunkID == "" {
			return domain.Errorf(domain.CodeValidation, "Chunk %d: the chunk id is missing.", i)
		}
		meta, err := convertMetadata(d.Metadata)
		if err != nil {
			return domain.Errorf(domain.CodeValidation, "Chunk %d (%q): %s.", i, d.ChunkID, err)
		}
		tokens = x.stems.AppendTerms(tokens[:0], d.Text)
		prep[i] = prepared{chunk: d.ChunkID, kb: d.KBID, doc: d.DocumentID, meta: meta, terms: countTerms(tokens, counts)}
		prep[i].length = int32(len(tokens))
	}
	if len(prep) == 0 {
		return nil
	}
	s := x.shards.Get(tenant, true)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range prep {
		s.insert(&prep[i])
	}
	s.maybeCompact()
	return nil
}

// countTerms returns the distinct tokens with their counts, in order of
// first occurrence; counts is scratch space, left empty.
func countTerms(tokens []string, counts map[string]int32) []termCount {
	for _, t := range tokens {
		counts[t]++
	}
	out := make([]termCount, 0, len(counts))
	for _, t := range tokens {
		if n := counts[t]; n > 0 {
			out = append(out, termCount{term: t, tf: n})
			counts[t] = 0 // taken
		}
	}
	clear(counts)
	return out
}

// DeleteDocument removes every chunk of document documentID from tenant's
// shard and returns how many it removed.
func (x *Index) DeleteDocument(tenant domain.TenantID, documentID string) int {
	return x.shards.With(tenant, func(s *shard) int { return s.removeWhere(func(s *shard) []uint32 { return s.docs }, documentID) })
}

// DeleteKnowledgeBase removes every chunk of knowledge base kbID from
// tenant's shard and returns how many it removed.
func (x *Index) DeleteKnowledgeBase(tenant domain.TenantID, kbID string) int {
	return x.shards.With(tenant, func(s *shard) int { return s.removeWhere(func(s *shard) []uint32 { return s.kbs }, kbID) })
}
