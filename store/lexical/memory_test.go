package lexical

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bytes grows with the chunks, shrinks once a large delete is compacted,
// and each tenant counts its own.
func TestBytesFollowTheChunks(t *testing.T) {
	x := New()
	assert.Zero(t, x.Bytes("acme"))
	docs := make([]Doc, 3000)
	for i := range docs {
		docs[i] = Doc{ChunkID: fmt.Sprintf("chunk-%05d", i), KBID: "kb", DocumentID: fmt.Sprintf("doc-%d", i/10),
			Text:     fmt.Sprintf("parcel %d ships within two days to warehouse %d", i, i%7),
			Metadata: map[string]any{"lang": "en", "tags": []string{"shipping"}}}
	}
	require.NoError(t, x.Upsert("acme", docs))
	require.NoError(t, x.Upsert("globex", docs[:10]))
	checkInvariants(t, x, "acme")

	full := x.Bytes("acme")
	// Each chunk holds at least its id and seven postings of 8 bytes.
	assert.Greater(t, full, int64(len(docs)*(len("chunk-00000")+7*8)))
	assert.Less(t, full, int64(len(docs)*2000))

	assert.Equal(t, len(docs), x.DeleteKnowledgeBase("acme", "kb"))
	checkInvariants(t, x, "acme")
	// What is left is the dictionary's arrays by term id (about 3000
	// ids, which compact does not renumber): 56 bytes each.
	assert.Less(t, x.Bytes("acme"), full/8, "compacted once the dead outnumber the live")

	assert.Positive(t, x.Bytes("globex"), "another tenant keeps its own")
}
