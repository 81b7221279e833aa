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

// The customer-service lexicon joins the words customers use to the words
// help pages use, in English and Chinese, and nothing merely related.
func TestLexiconSynonyms(t *testing.T) {
	s := NewSynonyms()
	for _, c := range []struct{ a, b string }{
		{"refund", "reimbursement"}, {"parcel", "package"}, {"shipping", "delivery"}, {"faulty", "broken"},
		{"退款", "退钱"}, {"配送", "发货"}, {"保修", "质保"}, {"发票", "收据"},
	} {
		assert.Contains(t, s.Of(lexiconTerm(c.a)), lexiconTerm(c.b), "%s ~ %s", c.a, c.b)
	}
	assert.NotContains(t, s.Of(lexiconTerm("delivery")), lexiconTerm("refund"))
	assert.Empty(t, lexiconTerm("快递费"), "a Chinese word of three characters is no one term")
}
