package retrieve

import (
	"hash/maphash"
	"sync"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/internal/lru"
)

// maxTermSets bounds the memo of chunks' term sets: about 4 KB each for a
// chunk of 200 words, so 32 MB at most.
const maxTermSets = 8192

// termSets memoizes the term sets of the texts retrieval scores (a
// candidate's heading path and text). Cutting and stemming the candidates'
// texts was most of a retrieval's CPU, and the same chunks are found
// again and again. An entry is keyed by the text's 64-bit hash and length,
// so a chunk whose text changed (ids are positional) simply misses; the
// least recently used entries go past the bound. Safe for concurrent use.
type termSets struct {
	seed maphash.Seed
	mu   sync.Mutex
	sets *lru.Map[termKey, map[string]struct{}] // each of cost 1
}

type termKey struct {
	hash uint64
	n    int
}

func newTermSets() *termSets {
	return &termSets{seed: maphash.MakeSeed(), sets: lru.New[termKey, map[string]struct{}](maxTermSets, nil)}
}

// of returns the distinct terms of text with the kinds of answer it holds
// (analysis.EvidenceTerms). The map is shared: callers must not change it.
func (s *termSets) of(text string) map[string]struct{} {
	k := termKey{hash: maphash.String(s.seed, text), n: len(text)}
	s.mu.Lock()
	if terms, ok := s.sets.Get(k); ok {
		s.mu.Unlock()
		return terms
	}
	s.mu.Unlock()
	terms := analysis.EvidenceTerms(text)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sets.Contains(k) {
		s.sets.Put(k, terms, 1)
	}
	return terms
}
