package lexical

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// referenceSearch is Search without pruning, as it was written before
// MaxScore: every posting of every query term adds its term's share to
// its chunk's score, term after term in query order; then the chunks that
// pass the knowledge-base restriction and the filter are sorted by score
// (then chunk id) and the first TopK kept.
func referenceSearch(t *testing.T, x *Index, tenant domain.TenantID, q Query) []Hit {
	t.Helper()
	filter, err := metafilter.Parse(q.Filter)
	require.NoError(t, err)
	hits := []Hit{}
	terms := queryTerms(q.Text, q.Expand)
	s := x.shards.Get(tenant, false)
	if len(terms) == 0 || s == nil {
		return hits
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.live() == 0 {
		return hits
	}
	var kbs symbols.Set
	if len(q.KBIDs) > 0 {
		ids := s.syms.LookupAll(q.KBIDs)
		if len(ids) == 0 {
			return hits
		}
		kbs = symbols.NewSet(ids)
	}
	n := float64(s.live())
	avgdl := float64(s.totalLen) / n
	c0, c1 := K1*(1-B), 0.0
	if avgdl > 0 {
		c1 = K1 * B / avgdl
	}
	acc := make([]float64, len(s.chunks))
	var touched []int32
	for _, qt := range terms {
		id, ok := s.dict[qt.term]
		if !ok {
			continue
		}
		w := IDF(n, float64(s.df[id])) * float64(qt.tf) * (K1 + 1)
		for _, p := range s.postings[id] {
			l := s.lens[p.slot]
			if l < 0 {
				continue
			}
			tf := float64(p.tf)
			if acc[p.slot] == 0 {
				touched = append(touched, p.slot)
			}
			acc[p.slot] += w * tf / (tf + c0 + c1*float64(l))
		}
	}
	for _, slot := range touched {
		if kbs != nil && !kbs.Has(s.kbs[slot]) || filter != nil && !filter.Match(s.meta[slot]) {
			continue
		}
		hits = append(hits, Hit{ChunkID: s.chunks[slot], KBID: s.syms.Name(s.kbs[slot]), DocumentID: s.syms.Name(s.docs[slot]), Score: acc[slot]})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return strings.Compare(a.ChunkID, b.ChunkID)
	})
	return hits[:min(len(hits), q.TopK, MaxTopK)]
}

// requireSameHits fails unless got and want are the same hits in the same
// order with bit-identical scores.
func requireSameHits(t *testing.T, want, got []Hit, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(got), "%s: number of hits", msg)
	for i := range want {
		w, g := want[i], got[i]
		if w.ChunkID != g.ChunkID || w.KBID != g.KBID || w.DocumentID != g.DocumentID || math.Float64bits(w.Score) != math.Float64bits(g.Score) {
			t.Fatalf("%s: hit %d of %d: want %+v, got %+v", msg, i, len(want), w, g)
		}
	}
}

// randomCorpus draws chunks and queries from one vocabulary.
type randomCorpus struct {
	rng   *rand.Rand
	vocab []string
	zipf  *rand.Zipf // nil: uniform
	// Chunk lengths: fixed (many exact ties) or between 1 and maxLen.
	fixedLen, maxLen int
	next             int // chunk ids handed out
}

// word draws a word.
func (c *randomCorpus) word() string {
	if c.zipf != nil {
		return c.vocab[c.zipf.Uint64()]
	}
	return c.vocab[c.rng.IntN(len(c.vocab))]
}

// words draws n words.
func (c *randomCorpus) words(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = c.word()
	}
	return out
}

// doc draws a chunk, with a new id or (sometimes) one already handed out.
func (c *randomCorpus) doc() Doc {
	id := c.next
	if c.next > 0 && c.rng.IntN(10) == 0 {
		id = c.rng.IntN(c.next)
	} else {
		c.next++
	}
	n := c.fixedLen
	if n == 0 {
		n = 1 + c.rng.IntN(c.maxLen)
		if c.rng.IntN(20) == 0 {
			n *= 5 // a few long ones
		}
	}
	meta := map[string]any{"n": float64(c.rng.IntN(10))}
	if c.rng.IntN(4) > 0 {
		meta["tag"] = []string{"red", "green", "blue"}[c.rng.IntN(3)]
	}
	return Doc{
		ChunkID:    fmt.Sprintf("c%05d", id),
		KBID:       "kb" + strconv.Itoa(c.rng.IntN(4)),
		DocumentID: "d" + strconv.Itoa(id/8),
		Text:       strings.Join(c.words(n), " "),
		Metadata:   meta,
	}
}

// query draws a query: short or long, often with a repeated word, an
// unknown word or expansion terms (some already in the text), a top k
// from 1 to beyond the matches, and sometimes a knowledge-base
// restriction or a filter.
func (c *randomCorpus) query() Query {
	rng := c.rng
	var w []string
	switch rng.IntN(3) {
	case 0:
		w = c.words(1 + rng.IntN(2))
	case 1:
		w = c.words(3 + rng.IntN(5))
	default:
		w = c.words(10 + rng.IntN(30))
	}
	if rng.IntN(3) == 0 {
		w = append(w, w[rng.IntN(len(w))]) // repeated
	}
	if rng.IntN(5) == 0 {
		w = append(w, "zzunknown")
	}
	rng.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
	q := Query{Text: strings.Join(w, " ")}
	for range rng.IntN(4) {
		switch rng.IntN(3) {
		case 0:
			q.Expand = append(q.Expand, w[rng.IntN(len(w))])
		case 1:
			q.Expand = append(q.Expand, "zzexpand")
		default:
			q.Expand = append(q.Expand, c.word())
		}
	}
	switch rng.IntN(6) {
	case 0:
		q.TopK = 1
	case 1:
		q.TopK = 2 + rng.IntN(9)
	case 2:
		q.TopK = 11 + rng.IntN(190)
	case 3:
		q.TopK = 5000 // beyond the matches, lowered to MaxTopK
	default:
		q.TopK = 10 + 10*rng.IntN(5)
	}
	switch rng.IntN(5) {
	case 0:
		q.KBIDs = []string{"kb" + strconv.Itoa(rng.IntN(4))}
	case 1:
		q.KBIDs = []string{"kb1", "kb3", "kbnone"}
	}
	switch rng.IntN(6) {
	case 0:
		q.Filter = &domain.Filter{Field: "n", Op: domain.OpLt, Value: float64(1 + rng.IntN(9))}
	case 1:
		q.Filter = &domain.Filter{Field: "tag", Op: domain.OpEq, Value: "red"}
	case 2:
		q.Filter = &domain.Filter{Field: "tag", Op: domain.OpNe, Value: "blue"}
	}
	return q
}
