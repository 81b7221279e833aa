package ingest

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// A panic while cutting a document fails its job with a stable reason
// instead of ending the process (a nil tokenizer is what trips it here).
func TestCutUnitsTurnsAPanicIntoAJobFailure(t *testing.T) {
	doc := parse.Document{Kind: parse.KindText, Blocks: []parse.Block{{Text: "Refunds take five days.", Line: 1}}}
	_, _, err := cutUnits(nil, "doc_1", doc, chunk.DefaultOptions())
	var jf *jobFailure
	require.True(t, errors.As(err, &jf), "%v", err)
	assert.Equal(t, parse.ReasonCrashed, jf.reason)
	assert.False(t, jf.retry, "the same document would trip it again")
}
