package ingest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
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

// Chunks refused by a quota fail the job for good, with the quota's
// reason; any other error is not a quota's.
func TestQuotaRefusalsFailTheJob(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		reason string
	}{
		{"chunks", domain.CheckQuota(domain.QuotaChunks, 10, 8, 5), domain.ReasonChunkQuota},
		{"index memory", domain.CheckQuota(domain.QuotaIndexMemoryBytes, 1000, 800, 500), domain.ReasonIndexMemoryQuota},
		{"wrapped", fmt.Errorf("replace: %w", domain.CheckQuota(domain.QuotaChunks, 1, 1, 1)), domain.ReasonChunkQuota},
		{"another error", domain.Errorf(domain.CodeUnavailable, "down"), ""},
		{"a lost lease", domain.ErrLeaseLost, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := quotaFailure(tc.err)
			if tc.reason == "" {
				assert.Nil(t, f)
				return
			}
			require.NotNil(t, f)
			assert.Equal(t, tc.reason, f.reason)
			assert.False(t, f.retry, "the same document would pass the quota again")
			assert.Contains(t, f.detail, "quota of")
		})
	}
}
