package answer

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
)

func TestCitationsInTheAnswerMapToSources(t *testing.T) {
	cs := []Citation{{Index: 1, Chunk: domain.Chunk{ID: "a"}}, {Index: 2, Chunk: domain.Chunk{ID: "b"}}, {Index: 3, Chunk: domain.Chunk{ID: "c"}}}
	assert.Equal(t, []Citation{cs[0]}, Cited("Returns take 30 days [1].", cs), "only what the answer cites")
	assert.Equal(t, []Citation{cs[0], cs[2]}, Cited("Yes [3], within 30 days [1][3].", cs), "in source order, each once")
	assert.Equal(t, cs, Cited("Returns take 30 days.", cs), "an answer citing nothing keeps every source")
	assert.Equal(t, cs, Cited("See [9].", cs), "a number no source has is ignored")
}

func TestAnExtractiveAnswerCitesTheUnitsItQuotes(t *testing.T) {
	p := int32(0)
	unit := func(id, text string) domain.Chunk {
		return domain.Chunk{ID: id, DocumentID: "doc", Text: text, ParentIndex: &p, Context: "passage"}
	}
	a, b := unit("a", "Returns take 30 days."), unit("b", "Refunds take 5 days.")
	res := retrieve.Result{Evidence: []domain.Chunk{a, b}, Candidates: []retrieve.Candidate{{Chunk: a, Kept: true}, {Chunk: b, Kept: true}}}
	cs := citations(res)
	assert.Len(t, cs, 1, "two units of one passage are one source")
	got := used(domain.Generation{Answer: "Refunds take 5 days.", EvidenceUsed: []int{1}}, res, cs)
	assert.Equal(t, []Citation{{Index: 1, Chunk: b}}, got, "the source shows the quoted unit")
}
