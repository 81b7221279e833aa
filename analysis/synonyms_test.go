package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSynonymsAreSynonymsNotRelatedWords(t *testing.T) {
	s := NewSynonyms()
	term := func(w string) string { return Terms(w)[0] }
	assert.Contains(t, s.Of(term("guarantee")), term("warranty"))
	assert.Contains(t, s.Of(term("warranty")), term("guarantee"), "both ways")
	assert.Contains(t, s.Of(term("couch")), term("sofa"))
	assert.NotContains(t, s.Of(term("switzerland")), term("germany"), "co-hyponyms are not synonyms")
	assert.NotContains(t, s.Of(term("bitcoin")), term("paypal"))
	assert.Nil(t, (*Synonyms)(nil).Of("sofa"))
}
