package pg

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// A stored row the store cannot read back is an internal error that names
// the row, never a silently empty value.
func TestStoredDataThatCannotBeReadIsAnErrorNamingTheRow(t *testing.T) {
	bad := []byte(`[1, 2]`) // valid jsonb, not the object the store writes
	check := func(err error, id string) {
		t.Helper()
		require.Error(t, err)
		assert.Equal(t, domain.CodeInternal, domain.ErrorCodeOf(err))
		assert.Contains(t, domain.ErrorMessage(err), id)
	}
	_, err := documentFromRow(db.Document{ID: "doc_1", Metadata: bad})
	check(err, "doc_1")
	_, err = chunkFromRow(db.Chunk{ID: "chk_1", Metadata: bad})
	check(err, "chk_1")
	_, err = chunkText("acme", "chk_2", "kb_1", "doc_1", "text", bad, nil)
	check(err, "chk_2")
	_, err = vectorsFromRows([]db.ChunkVector{{ChunkID: "chk_3", Metadata: bad}})
	check(err, "chk_3")
	_, err = decodeFindings([]byte(`{"level": 1}`), "aud_1")
	check(err, "aud_1")

	d, err := documentFromRow(db.Document{ID: "doc_2", Metadata: []byte(`{"lang": "zh"}`)})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"lang": "zh"}, d.Metadata, "a good row reads as before")
}
