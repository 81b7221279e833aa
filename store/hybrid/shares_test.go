package hybrid

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// fixedShares gives each tenant named a share; the others have none.
type fixedShares map[domain.TenantID]int64

func (s fixedShares) IndexShare(_ context.Context, tenant domain.TenantID) int64 { return s[tenant] }

// residentTenants lists the loaded tenants, sorted.
func residentTenants(x *Index) []domain.TenantID {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []domain.TenantID
	for id, t := range x.tenants {
		if t.loaded && !t.gone {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// Past the bound, a tenant held beyond its share goes before any other,
// and what it holds beyond its share takes no other tenant's place: its
// loading evicts others for its share at most.
func TestATenantEvictsOthersOnlyForItsShare(t *testing.T) {
	db := newFakeDB()
	seedTenants(db, 40, "small1", "small2")
	seedTenants(db, 400, "big")
	probe := newIndex(t, db, 0)
	vectorIDs(t, probe, "small1", axis(0))
	one := probe.Stats().Bytes
	vectorIDs(t, probe, "big", axis(0))
	big := probe.Stats().Bytes - one
	require.Greater(t, big, 3*one, "big is several times a small tenant")

	for _, tc := range []struct {
		name     string
		shares   fixedShares
		limit    int64
		searches []domain.TenantID
		resident []domain.TenantID
	}{
		{"without shares the least recently used go", nil, big + one*3/2,
			[]domain.TenantID{"small1", "big", "small2"}, []domain.TenantID{"big", "small2"}},
		{"a tenant past its share goes first, though used more recently", fixedShares{"big": one}, big + one*3/2,
			[]domain.TenantID{"small1", "big", "small2"}, []domain.TenantID{"small1", "small2"}},
		{"without shares a large tenant evicts every other", nil, one * 5 / 2,
			[]domain.TenantID{"small1", "small2", "big"}, []domain.TenantID{"big"}},
		{"a large tenant evicts others for its share only", fixedShares{"big": one}, one * 5 / 2,
			[]domain.TenantID{"small1", "small2", "big"}, []domain.TenantID{"big", "small2"}},
		{"and goes itself when another is used", fixedShares{"big": one}, one * 5 / 2,
			[]domain.TenantID{"small1", "small2", "big", "small1"}, []domain.TenantID{"small1", "small2"}},
		{"a share it stays within changes nothing", fixedShares{"big": 2 * big}, big + one*3/2,
			[]domain.TenantID{"small1", "big", "small2"}, []domain.TenantID{"big", "small2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Dims: dims, MemoryBytes: tc.limit, Log: slog.New(slog.DiscardHandler),
				Vectors: memindex.Options{VectorDir: t.TempDir()}}
			if tc.shares != nil {
				o.Shares = tc.shares
			}
			x := New(db, o)
			t.Cleanup(x.Close)
			for _, tenant := range tc.searches {
				assert.NotEmpty(t, vectorIDs(t, x, tenant, axis(1)), "%s answers whatever was evicted", tenant)
			}
			assert.Equal(t, tc.resident, residentTenants(x))
		})
	}
}

// The estimate of a tenant's index memory, made without loading it, stays
// within about a third of what the loaded index counts, for small and
// large tenants of short and long chunks.
func TestEstimateBytesFollowsTheIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 20_000)
	for i := range vocab {
		w := make([]byte, 3+r.IntN(8))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		vocab[i] = string(w)
	}
	const realDims = domain.EmbeddingDims
	for _, tc := range []struct{ chunks, words int }{
		{500, 1}, {500, 10}, {500, 100}, {500, 300},
		{5000, 1}, {5000, 10}, {5000, 100}, {5000, 300},
	} {
		t.Run(fmt.Sprintf("%d chunks of %d words", tc.chunks, tc.words), func(t *testing.T) {
			db := newFakeDB()
			recs := make([]domain.VectorRecord, tc.chunks)
			var textBytes int64
			for i := range recs {
				words := make([]string, tc.words)
				for j := range words {
					// Skewed towards the first words, as natural text is.
					words[j] = vocab[int(float64(len(vocab))*r.Float64()*r.Float64()*r.Float64())]
				}
				v := make([]float32, realDims)
				for j := range v {
					v[j] = r.Float32() - 0.5
				}
				recs[i] = domain.VectorRecord{ChunkID: domain.NewID(domain.PrefixChunk), KBID: domain.NewID("kb_"),
					DocumentID: fmt.Sprintf("doc_%032d", i/100), Model: model, Vector: v, Text: strings.Join(words, " "),
					Metadata: map[string]any{"product": "router"}}
				textBytes += int64(len(recs[i].Text))
			}
			db.put("acme", recs...)
			x := New(db, Options{Dims: realDims, Log: slog.New(slog.DiscardHandler), Vectors: memindex.Options{VectorDir: t.TempDir()}})
			t.Cleanup(x.Close)
			_, err := x.SearchWords(context.Background(), "acme", domain.LexicalQuery{Text: "load", TopK: 1})
			require.NoError(t, err)
			measured := float64(x.Stats().Bytes)
			estimate := float64(EstimateBytes(realDims, int64(tc.chunks), textBytes))
			assert.InDelta(t, 1, estimate/measured, 0.45, "estimate %.0f, index %.0f bytes", estimate, measured)
		})
	}
	assert.Zero(t, EstimateBytes(realDims, 0, 0))
}
