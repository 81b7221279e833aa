package retrieve

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
)

// Hits kept for their words alone count 0 in the support, as the
// documented formula says of a missing hit.
func TestLexicalOnlyHitsDoNotInflateConfidence(t *testing.T) {
	v := 0.6
	l := 5.0
	cands := []Candidate{
		{Chunk: domain.Chunk{ID: "a"}, VectorScore: &v, Kept: true},
		{Chunk: domain.Chunk{ID: "b"}, LexicalScore: &l, Kept: true},
		{Chunk: domain.Chunk{ID: "c"}, LexicalScore: &l, Kept: true},
	}
	e := evidenceOf(make([]domain.Chunk, 3), cands, 30)
	d := confidence.Decide(e, confidence.Thresholds{MinEvidenceTokens: 20})
	assert.InDelta(t, 0.5225, d.Confidence, 1e-9)
}
