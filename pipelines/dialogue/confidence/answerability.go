package confidence

import (
	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// Question is a question's informative terms, each weighted by how telling
// it is in the tenant's knowledge (its inverse document frequency), for
// judging how much of the question a piece of evidence covers.
type Question struct {
	terms   []string
	weights []float64
	total   float64
}

// NewQuestion weighs the terms of a question (analysis.QuestionTerms) with
// their stats: a term counts its idf times its question weight. A word no chunk holds keeps its weight, the highest: "Do you
// take bitcoin?" is not answered by a text that never says bitcoin. A CJK
// character pair no chunk holds is left out: it is nearly always two words
// that happen to stand side by side in the question ("申请退款" gives 请退),
// and its characters are terms of their own.
func NewQuestion(terms []analysis.QuestionTerm, stats []domain.TermStat) Question {
	var q Question
	for i, qt := range terms {
		t := qt.Term
		w := max(stats[i].IDF, 0) * qt.Weight
		if !stats[i].Found && isCJKPair(t) {
			w *= 0.5
		}
		q.terms = append(q.terms, t)
		q.weights = append(q.weights, w)
		q.total += w
	}
	return q
}

// Empty reports whether the question has no informative term (a greeting,
// punctuation): nothing can be judged to answer it.
func (q Question) Empty() bool { return q.total == 0 }

// Coverage returns the weighted share of the question's terms that have
// holds, in [0, 1]; 0 for an empty question.
func (q Question) Coverage(has map[string]struct{}) float64 {
	if q.total == 0 {
		return 0
	}
	got := 0.0
	for i, t := range q.terms {
		if _, ok := has[t]; ok {
			got += q.weights[i]
		}
	}
	return min(1, got/q.total)
}

// Terms returns the question's informative terms.
func (q Question) Terms() []string { return q.terms }

// isCJKPair reports whether t is a pair of CJK characters.
func isCJKPair(t string) bool {
	n := 0
	for _, r := range t {
		if !analysis.IsCJK(r) {
			return false
		}
		n++
	}
	return n == 2
}
