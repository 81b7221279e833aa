package memindex

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

const testModel = "offline-hash-v1"

// randVector returns a random vector of length d (not normalised: the
// index must normalise).
func randVector(rng *rand.Rand, d int) []float32 {
	v := make([]float32, d)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// cosine is the reference similarity, in float64.
func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// search runs q with defaults for the fields a test does not care about.
func search(t testing.TB, x *Index, tenant domain.TenantID, q domain.VectorQuery) []domain.VectorHit {
	t.Helper()
	if q.Model == "" {
		q.Model = testModel
	}
	if q.TopK == 0 {
		q.TopK = 100
	}
	hits, err := x.Search(context.Background(), tenant, q)
	require.NoError(t, err)
	return hits
}

// ids returns the chunk ids of hits, in order.
func ids(hits []domain.VectorHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkID
	}
	return out
}

// checkInvariants verifies a shard's internal consistency: the row map,
// the parallel slices, the columns and the symbol reference counts.
func checkInvariants(t testing.TB, x *Index, tenant domain.TenantID) {
	t.Helper()
	s := x.shards.Get(tenant, false)
	if s == nil {
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := s.len()
	require.Len(t, s.rows, n)
	require.Len(t, s.vecs, n*s.dims)
	require.Len(t, s.docs, n)
	require.Len(t, s.kbs, n)
	require.Len(t, s.models, n)
	checkCodes(t, s)
	refs := make(map[uint32]uint32)
	for r, c := range s.chunks {
		require.Equal(t, int32(r), s.rows[c], "row of %q", c)
		refs[s.docs[r]]++
		refs[s.kbs[r]]++
		refs[s.models[r]]++
	}
	for f, c := range s.cols {
		require.Len(t, c.kinds, n, f)
		require.Len(t, c.vals, n, f)
		if c.lists != nil {
			require.Len(t, c.lists, n, f)
		}
		present := 0
		for r, k := range c.kinds {
			switch k {
			case kindMissing:
				continue
			case kindString:
				refs[uint32(c.vals[r])]++
			case kindStrings:
				for _, id := range c.lists[r] {
					refs[id]++
				}
			}
			present++
		}
		require.Equal(t, present, c.present, f)
		require.NotZero(t, present, "empty column %q kept", f)
	}
	live := 0
	for id := range uint32(s.syms.Len()) {
		str := s.syms.Name(id)
		if s.syms.Refs(id) == 0 {
			require.Empty(t, str)
			continue
		}
		live++
		require.Equal(t, refs[id], s.syms.Refs(id), "refs of %q", str)
		sym, _ := s.syms.Lookup(str)
		require.Equal(t, id, sym)
	}
	require.Equal(t, live, s.syms.Live())
	require.Len(t, refs, live, "symbols in use but not live")
}

// checkCodes verifies that every row's code is the code of its vector:
// moves, updates and compaction keep the two arenas in step.
func checkCodes(t testing.TB, s *shard) {
	t.Helper()
	c := &s.codes
	n, d := s.len(), s.dims
	switch c.kind {
	case QuantizeNone:
		require.Empty(t, c.i8)
		require.Empty(t, c.i4)
		require.Empty(t, c.bits)
		return
	case QuantizeInt4:
		require.Len(t, c.i4, c.int4Tiles(n)*c.int4TileBytes())
		require.Len(t, c.scales, n)
	case QuantizeInt8:
		require.Len(t, c.i8, n*c.stride)
		require.Len(t, c.scales, n)
	case QuantizeBinary:
		require.Len(t, c.bits, n*c.words)
	}
	require.Equal(t, n, c.rows())
	want := newCodes(c.kind, d)
	want.grow(1)
	want.appendRow()
	for r := range n {
		want.encode(0, s.vecs[r*d:(r+1)*d])
		switch c.kind {
		case QuantizeInt4:
			require.Equal(t, want.int4Row(0), c.int4Row(r), "int4 code of row %d (%s)", r, s.chunks[r])
			require.Equal(t, want.scales[0], c.scales[r], "scale of row %d (%s)", r, s.chunks[r])
		case QuantizeInt8:
			require.Equal(t, want.i8, c.i8[r*c.stride:(r+1)*c.stride], "int8 code of row %d (%s)", r, s.chunks[r])
			require.Equal(t, want.scales[0], c.scales[r], "scale of row %d (%s)", r, s.chunks[r])
		case QuantizeBinary:
			require.Equal(t, want.bits, c.bits[r*c.words:(r+1)*c.words], "sign bits of row %d (%s)", r, s.chunks[r])
		}
	}
}
