package lexical

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// search runs q with a large TopK unless the test sets one.
func search(t testing.TB, x *Index, tenant domain.TenantID, q Query) []Hit {
	t.Helper()
	if q.TopK == 0 {
		q.TopK = 100
	}
	hits, err := x.Search(context.Background(), tenant, q)
	require.NoError(t, err)
	return hits
}

// ids returns the chunk ids of hits, in order.
func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out
}

// scores maps chunk ids to scores.
func scores(hits []Hit) map[string]float64 {
	out := make(map[string]float64, len(hits))
	for _, h := range hits {
		out[h.ChunkID] = h.Score
	}
	return out
}

// checkInvariants recomputes a shard's statistics from its live slots and
// compares them with the ones kept incrementally, and checks that each
// term's bound covers its live postings.
func checkInvariants(t *testing.T, x *Index, tenant domain.TenantID) {
	t.Helper()
	s := x.shards.Get(tenant, false)
	if s == nil {
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var total, meta int64
	df := map[uint32]int32{}
	live, dead, idBytes, termRefs, termBytes, postingCap := 0, 0, 0, 0, 0, 0
	for slot, l := range s.lens {
		if l < 0 {
			dead++
			require.Empty(t, s.chunks[slot])
			continue
		}
		live++
		total += int64(l)
		require.Equal(t, int32(slot), s.rows[s.chunks[slot]], "rows map")
		for _, id := range s.terms[slot] {
			df[id]++
		}
		idBytes += len(s.chunks[slot])
		termRefs += len(s.terms[slot])
		meta += metaBytes(s.meta[slot])
	}
	require.Equal(t, live, s.live())
	require.Equal(t, dead, s.dead)
	require.Equal(t, total, s.totalLen)
	for _, list := range s.postings {
		postingCap += cap(list)
	}
	for term, id := range s.dict {
		termBytes += len(term)
		require.Equal(t, term, s.names[id])
		require.Equal(t, df[id], s.df[id], "df of %q", term)
		require.Positive(t, s.df[id], "term %q without chunks", term)
		n := int32(0)
		prev := int32(-1)
		b := s.bounds[id]
		for _, p := range s.postings[id] {
			require.Greater(t, p.slot, prev, "postings of %q out of order", term)
			prev = p.slot
			if s.lens[p.slot] >= 0 {
				n++
				// The bound covers every live posting.
				require.LessOrEqual(t, p.tf, b.maxTF, "bound of %q", term)
				require.GreaterOrEqual(t, s.lens[p.slot], b.minLen, "bound of %q", term)
			}
		}
		require.Equal(t, df[id], n, "live postings of %q", term)
	}
	require.Equal(t, len(df), len(s.dict), "terms of live chunks missing from the dictionary")
	// The running sizes Bytes adds up.
	require.Equal(t, []int{idBytes, termRefs, termBytes, postingCap}, []int{s.idBytes, s.termRefs, s.termBytes, s.postingCap},
		"running sizes: id bytes, term refs, term bytes, posting capacity")
	require.Equal(t, meta, s.metaBytes, "metadata bytes")
}
