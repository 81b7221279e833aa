package retrieve

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/analysis"
)

func TestTermSetsAreTheEvidenceTermsRememberedWithinABound(t *testing.T) {
	s := newTermSets()
	text := "Refunds are paid to the original payment method within 5 working days."
	first := s.of(text)
	assert.Equal(t, analysis.EvidenceTerms(text), first)
	second := s.of(text)
	assert.Equal(t, fmt.Sprintf("%p", first), fmt.Sprintf("%p", second), "the same text is cut once")
	changed := s.of(text + " Exchanges too.")
	assert.Equal(t, analysis.EvidenceTerms(text+" Exchanges too."), changed, "a changed text (same chunk id) is cut again")

	for i := range maxTermSets + 10 {
		s.of(fmt.Sprintf("chunk %d about shipping", i))
	}
	assert.Equal(t, maxTermSets, s.sets.Len(), "the bound holds")
	assert.NotEqual(t, fmt.Sprintf("%p", first), fmt.Sprintf("%p", s.of(text)), "the first text, least recently used, went")
}
