package confidence

import (
	"testing"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// BenchmarkAnswerabilityPerMessage is the work answerability adds to one
// message: analysing the question, weighing its terms (with synonyms), and
// analysing and covering a full candidate pool (4·topK units of each list
// at the default topK 5). The target is ≤ 1 ms p50 (issue 9); the term
// statistics come from the BM25 index, which the retrieval benchmarks time.
func BenchmarkAnswerabilityPerMessage(b *testing.B) {
	syn := analysis.NewSynonyms()
	units := []string{
		"Returns and refunds › Mattresses\nThey can be returned within 100 nights of delivery for a full refund.",
		"Delivery\nStandard delivery takes 3 to 5 working days and is free for orders above 75 EUR.",
		"Q: Can I cancel my order? A: Orders can be cancelled free of charge until they ship.",
		"退换货\n商品签收后7天内支持无理由退换货，定制类商品除外。",
		"Product: Oslo sofa; Category: Sofa; Price (EUR): 899; Dimensions W x D x H (cm): 220 x 95 x 82; Colour / finish: Grey",
	}
	pool := make([]string, 40)
	for i := range pool {
		pool[i] = units[i%len(units)]
	}
	question := "How long do I have to send back a mattress if I don't like it?"
	b.ReportAllocs()
	for b.Loop() {
		qts := analysis.QuestionTerms(question)
		stats := make([]domain.TermStat, len(qts))
		for i := range stats {
			stats[i] = domain.TermStat{IDF: 2, Found: i%2 == 0}
		}
		q := NewQuestion(qts, stats, syn)
		for _, u := range pool {
			_ = q.Coverage(analysis.TermSet(u))
		}
	}
}
