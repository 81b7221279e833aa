package retrieve

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// statsOnly is a LexicalSearcher that records the terms it is asked
// about and gives each an idf of 2, found.
type statsOnly struct{ asked [][]string }

func (s *statsOnly) SearchWords(context.Context, domain.TenantID, domain.LexicalQuery) ([]domain.LexicalHit, error) {
	return nil, nil
}

func (s *statsOnly) TermStats(_ context.Context, _ domain.TenantID, terms []string) ([]domain.TermStat, error) {
	s.asked = append(s.asked, terms)
	out := make([]domain.TermStat, len(terms))
	for i := range out {
		out[i] = domain.TermStat{IDF: 2, Found: true}
	}
	return out, nil
}

// The kind of answer a question asks for is judged from the texts, not
// looked up in the index (with Qdrant, a request), and a text that holds
// an expression of it covers the question more than one that does not.
func TestQuestionWeighsItsWordsAndJudgesItsKindApart(t *testing.T) {
	lex := &statsOnly{}
	r := &Retriever{lexical: lex}
	q, err := r.question(t.Context(), "acme", "How long is the warranty?")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"warranti"}}, lex.asked)
	assert.Equal(t, []string{"warranti"}, q.Terms())
	sets := newTermSets()
	with := q.Coverage(sets.of("Every router has a 2-year warranty."))
	without := q.Coverage(sets.of("Damage from water is not covered by the warranty."))
	assert.Equal(t, 1.0, with)
	assert.InDelta(t, 1.0/3, without, 1e-9, "one word and the kind: as if it lacked two more terms")
}
