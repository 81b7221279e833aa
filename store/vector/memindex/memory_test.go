package memindex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// Bytes counts at least the codes of every row in the heap, and the
// vectors there or in the mapping (Memory.Mapped), not much more than
// that, gives the memory back after a large delete, and each tenant counts
// its own.
func TestBytesFollowTheRecords(t *testing.T) {
	const dims, n = 64, 2000
	x := NewWithOptions(dims, Options{VectorDir: t.TempDir()})
	defer x.Close()
	assert.Zero(t, x.Bytes("acme"))
	assert.Equal(t, Memory{}, x.Memory("acme"))
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
	const vecBytes, codeBytes = dims * 4, dims + 4
	m := x.Memory("acme")
	require.NoError(t, m.MapErr)
	assert.Equal(t, m.Heap, x.Bytes("acme"))
	heapVecs := int64(0)
	if canMap {
		assert.GreaterOrEqual(t, m.Mapped, int64(n*vecBytes), "the vectors are mapped")
		assert.Less(t, m.Mapped, int64(n*vecBytes+os.Getpagesize()), "the arena was grown once, to its size")
	} else {
		assert.Zero(t, m.Mapped)
		heapVecs = n * vecBytes
	}
	assert.GreaterOrEqual(t, m.Heap, int64(n*codeBytes)+heapVecs)
	assert.Less(t, m.Heap, int64(n*(codeBytes+200))+heapVecs, "ids, symbols, map and metadata take less than 200 bytes a row here")

	assert.Equal(t, n, x.DeleteKnowledgeBase("acme", "kb"))
	after := x.Memory("acme")
	assert.Less(t, after.Heap, m.Heap/20, "the arenas shrink once most rows are gone")
	assert.Zero(t, after.Mapped, "an empty shard maps nothing")

	assert.Positive(t, x.Bytes("globex"), "another tenant keeps its own")
}

// An index of QuantizeNone, or with HeapVectors, keeps its vectors in the
// heap and counts them there.
func TestHeapVectorsAreCountedInBytes(t *testing.T) {
	const dims, n = 64, 100
	for _, o := range []Options{{Quantization: QuantizeNone}, {HeapVectors: true}} {
		x := NewWithOptions(dims, o)
		rng := rand.New(rand.NewPCG(1, 2))
		recs := make([]domain.VectorRecord, n)
		for i := range recs {
			recs[i] = domain.VectorRecord{ChunkID: fmt.Sprint(i), Model: testModel, Vector: randVector(rng, dims)}
		}
		require.NoError(t, x.Upsert("acme", recs))
		m := x.Memory("acme")
		assert.Zero(t, m.Mapped, "%+v", o)
		assert.GreaterOrEqual(t, m.Heap, int64(n*dims*4), "%+v", o)
	}
}
