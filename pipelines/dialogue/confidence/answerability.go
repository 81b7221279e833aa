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
	// alts are each term's synonyms, which cover it at synonymCredit.
	alts  [][]string
	total float64
	// kind is the Term of the kind of answer asked for ("" for any).
	kind string
}

// unseenPairWeight: a CJK character pair no chunk holds counts this much
// of its idf; it is most often two words side by side in the question
// ("申请退款" gives 请退), and its characters are terms of their own.
const unseenPairWeight = 0.5

// kindWeight is how many of the question's terms the kind of answer it
// asks for counts as, when a text lacks it: a question for a phone number,
// a time or a place is not answered by a sentence that only shares its
// topic. Measured on make eval's main and real-document sets: 1 (a
// term's worth) let near misses through at 0.6–0.95; 2 hands them off
// and keeps the answers that hold the kind.
const kindWeight = 2

// unseenWordWeight: a word of the question no chunk of the tenant holds
// ("Saturdays", "instalments", "bitcoin") counts this much of its idf, the
// highest there is already: what the knowledge never mentions it does
// not answer.
const unseenWordWeight = 1.5

// synonymCredit is how much of a term a synonym covers: nearly all, since
// a synonym says the same, but a text that uses the customer's own word is
// the surer match.
const synonymCredit = 0.8

// NewQuestion weighs the terms of a question (analysis.QuestionTerms) with
// their stats: a term counts its idf times its question weight (a CJK pair
// no chunk holds unseenPairWeight of that), and a synonym of it (syn, which
// may be nil) covers it too. A word no chunk holds has the highest idf:
// "Do you take bitcoin?" is not answered by a text that never says
// bitcoin. (Weighing such words more still was measured on make eval: it
// hands off a few more near misses and wrongly hands off more paraphrases.)
func NewQuestion(terms []analysis.QuestionTerm, stats []domain.TermStat, syn *analysis.Synonyms) Question {
	var q Question
	for i, qt := range terms {
		t := qt.Term
		w := max(stats[i].IDF, 0) * qt.Weight
		switch {
		case !stats[i].Found && isCJKPair(t):
			w *= unseenPairWeight
		case !stats[i].Found && !analysis.IsCJK([]rune(t)[0]):
			w *= unseenWordWeight
		}
		q.terms = append(q.terms, t)
		q.weights = append(q.weights, w)
		q.alts = append(q.alts, syn.Of(t))
		q.total += w
	}
	return q
}

// WithKind returns q asking for an answer of kind k (analysis.AskedKind),
// which Coverage judges apart from the question's words.
func (q Question) WithKind(k analysis.AnswerKind) Question {
	q.kind = k.Term()
	return q
}

// Empty reports whether the question has no informative term (a greeting,
// punctuation): nothing can be judged to answer it.
func (q Question) Empty() bool { return q.total == 0 }

// Coverage returns the weighted share of the question's terms that have
// holds, in [0, 1]; 0 for an empty question. When the question asks for a
// kind of answer (a duration, a price, a weight), a text whose terms lack
// its Term (analysis.EvidenceTerms) covers less.
func (q Question) Coverage(has map[string]struct{}) float64 {
	if q.total == 0 {
		return 0
	}
	got := 0.0
	for i, t := range q.terms {
		if _, ok := has[t]; ok {
			got += q.weights[i]
			continue
		}
		for _, a := range q.alts[i] {
			if _, ok := has[a]; ok {
				got += synonymCredit * q.weights[i]
				break
			}
		}
	}
	cov := min(1, got/q.total)
	if _, ok := has[q.kind]; q.kind != "" && !ok {
		// A text with no expression of the kind of answer asked for
		// covers the question as if the kind were kindWeight more terms,
		// of the others' mean weight, that it lacks: n/(n+kindWeight) of
		// its words' share. One that has one covers what its words cover: the kind
		// raises no text above its words, so a near miss on the topic
		// ("How long is the warranty on laptops?" against a router's
		// "2-year warranty") is no surer for holding a duration.
		n := float64(len(q.terms))
		cov *= n / (n + kindWeight)
	}
	return cov
}

// Terms returns the question's informative terms.
func (q Question) Terms() []string { return q.terms }

// Synonyms returns the synonyms of the question's terms that are not
// terms of it themselves, each once: what widens a search by words.
func (q Question) Synonyms() []string {
	seen := map[string]bool{}
	for _, t := range q.terms {
		seen[t] = true
	}
	var out []string
	for _, as := range q.alts {
		for _, a := range as {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

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
