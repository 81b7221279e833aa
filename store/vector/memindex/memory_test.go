package memindex

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// Bytes counts at least the vectors and codes of every row, not much more
// than that, gives the memory back after a large delete, and each tenant
// counts its own.
func TestBytesFollowTheRecords(t *testing.T) {
	const dims, n = 64, 2000
	x := New(dims)
	assert.Zero(t, x.Bytes("acme"))
	rng := rand.New(rand.NewPCG(1, 2))
	recs := make([]domain.VectorRecord, n)
	for i := range recs {
		recs[i] = domain.VectorRecord{ChunkID: fmt.Sprintf("chunk-%05d", i), KBID: "kb", DocumentID: fmt.Sprintf("doc-%d", i/10),
			Model: testModel, Vector: randVector(rng, dims), Metadata: map[string]any{"tags": []string{"a", "b"}, "page": 3.0}}
	}
	x.Grow("acme", n)
	require.NoError(t, x.Upsert("acme", recs))
	require.NoError(t, x.Upsert("globex", recs[:10]))

	// A float32 vector, an int8 code (64 is a whole block) and its scale.
	const rowFloor = dims*4 + dims + 4
	full := x.Bytes("acme")
	assert.GreaterOrEqual(t, full, int64(n*rowFloor))
	assert.Less(t, full, int64(n*(rowFloor+200)), "ids, symbols, map and metadata take less than 200 bytes a row here")

	assert.Equal(t, n, x.DeleteKnowledgeBase("acme", "kb"))
	assert.Less(t, x.Bytes("acme"), full/20, "the arenas shrink once most rows are gone")

	assert.Positive(t, x.Bytes("globex"), "another tenant keeps its own")
}
