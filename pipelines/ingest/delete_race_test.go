package ingest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// A document deleted while its chunks are being replaced goes, and the
// replacement gives up (its lease is lost): the two never deadlock, which
// the database would break by failing one of them.
func TestADeleteDuringChunkReplacementDoesNotDeadlock(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	for i := range 30 {
		doc, _ := h.upload(t, h.kb, fmt.Sprintf("race-%d.txt", i), []byte("Refunds take three working days."), nil)
		job, ok, err := h.store.ClaimJob(ctx, domain.JobClaim{Owner: "test", Lease: time.Hour})
		require.NoError(t, err)
		require.True(t, ok)
		_, _, err = h.store.LoadJobInput(ctx, job)
		require.NoError(t, err)
		chunks := make([]domain.Chunk, 300)
		for j := range chunks {
			chunks[j] = domain.Chunk{ID: domain.NewID(domain.PrefixChunk), Index: int32(j), Text: fmt.Sprint("chunk ", j), Tokens: 2}
		}
		var replaced, deleted error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Go(func() { <-start; replaced = h.store.ReplaceChunks(ctx, "test", job, chunks, nil) })
		wg.Go(func() { <-start; deleted = h.store.DeleteDocument(ctx, h.tenant, doc.ID) })
		close(start)
		wg.Wait()
		assert.NoError(t, deleted, "round %d", i)
		if replaced != nil {
			assert.True(t, errors.Is(replaced, domain.ErrLeaseLost), "round %d: %v", i, replaced)
		}
	}
}
