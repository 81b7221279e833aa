package confidence

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

func set(ts ...string) map[string]struct{} {
	out := map[string]struct{}{}
	for _, t := range ts {
		out[t] = struct{}{}
	}
	return out
}

func TestCoverageWeighsTermsByHowTellingTheyAre(t *testing.T) {
	q := NewQuestion([]analysis.QuestionTerm{{Term: "deliv", Weight: 1}, {Term: "canada", Weight: 1}},
		[]domain.TermStat{{IDF: 1, Found: true}, {IDF: 3, Found: false}}, nil)
	// A delivery text that never says Canada covers 1/(1+3·1.5) of the
	// question: the word no chunk holds weighs most.
	assert.InDelta(t, 1/(1+3*unseenWordWeight), q.Coverage(set("deliv", "germani")), 1e-9)
	assert.Equal(t, 1.0, q.Coverage(set("deliv", "canada")))
	assert.Equal(t, 0.0, q.Coverage(set("refund")))
	assert.False(t, q.Empty())
	assert.True(t, NewQuestion(nil, nil, nil).Empty())
	assert.Equal(t, 0.0, NewQuestion(nil, nil, nil).Coverage(set("deliv")))
}

func TestCoverageLeavesOutCJKPairsNoChunkHolds(t *testing.T) {
	// 申请退款 gives the pair 请退, two words side by side: no chunk holds
	// it, so it counts only half as a term of its own.
	q := NewQuestion([]analysis.QuestionTerm{{Term: "退款", Weight: 1}, {Term: "请退", Weight: 1}},
		[]domain.TermStat{{IDF: 2, Found: true}, {IDF: 2, Found: false}}, nil)
	assert.InDelta(t, 2.0/3, q.Coverage(set("退款")), 1e-9)
}

func TestSynonymsCoverMostOfATerm(t *testing.T) {
	syn := analysis.NewSynonyms()
	g := analysis.Terms("guarantee")[0]
	w := analysis.Terms("warranty")[0]
	q := NewQuestion([]analysis.QuestionTerm{{Term: g, Weight: 1}}, []domain.TermStat{{IDF: 2, Found: false}}, syn)
	assert.InDelta(t, synonymCredit, q.Coverage(set(w)), 1e-9)
	assert.Equal(t, 1.0, q.Coverage(set(g)))
	assert.Contains(t, q.Synonyms(), w)
	assert.NotContains(t, q.Synonyms(), g)
}

func TestTheKindOfAnswerAskedForWeighsLess(t *testing.T) {
	text := "Which countries do you deliver to?"
	q := NewQuestion(analysis.QuestionTerms(text), []domain.TermStat{{IDF: 3, Found: false}, {IDF: 1, Found: true}}, nil).
		WithKind(analysis.AskedKind(text))
	// countries: 3·0.25·1.5 (no chunk holds it), deliver: 1 → a text that
	// names a place without the word covers 1/2.125; one that names none
	// covers 2/(2+kindWeight) of that.
	assert.InDelta(t, 1/2.125, q.Coverage(set("deliv", "germani", analysis.PlaceAnswer.Term())), 1e-9)
	assert.InDelta(t, 1/2.125*2/(2+kindWeight), q.Coverage(set("deliv", "germani")), 1e-9)
}
