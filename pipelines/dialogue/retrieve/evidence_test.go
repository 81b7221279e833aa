package retrieve

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
)

func TestRelevanceIsCalibratedAndCombinedWithCoverage(t *testing.T) {
	q := confidence.NewQuestion([]analysis.QuestionTerm{{Term: "return", Weight: 1}, {Term: "mattress", Weight: 1}},
		[]domain.TermStat{{IDF: 1, Found: true}, {IDF: 3, Found: true}}, nil)
	cos := func(v float64) *float64 { return &v }
	cal := domain.CalibrationFor(domain.OfflineEmbeddingModel)
	cands := []Candidate{
		{Chunk: domain.Chunk{ID: "a", Text: "Returns are free."}, VectorScore: cos(0.22)},
		{Chunk: domain.Chunk{ID: "b", Text: "They can be returned within 100 nights.", HeadingPath: []string{"Mattresses"}}, VectorScore: cos(0.12)},
	}
	hybrid := domain.RetrievalStrategy{Mode: domain.ModeHybrid, LexicalWeight: 0.7}
	score(hybrid, cal, q, cands, newTermSets())
	// b holds both terms (mattress through its heading): coverage 1; a only
	// "return", a quarter of the question's weight.
	assert.Equal(t, "b", cands[0].Chunk.ID, "the heading path counts")
	assert.Equal(t, 1.0, cands[0].Coverage)
	assert.Equal(t, 0.25, cands[1].Coverage)
	assert.InDelta(t, 0.3*cal.Relevance(0.12)+0.7, cands[0].Relevance, 1e-4)

	vector := domain.RetrievalStrategy{Mode: domain.ModeVector}
	score(vector, cal, q, cands, newTermSets())
	assert.Equal(t, "a", cands[0].Chunk.ID, "vector mode orders by calibrated cosine alone")
	assert.InDelta(t, cal.Relevance(0.22), cands[0].Relevance, 1e-4)
}

func TestEvidenceCountsEachPassageOnceAndJudgesTheBestHit(t *testing.T) {
	p0 := int32(0)
	unit := func(id string, rel, cov float64) Candidate {
		return Candidate{Chunk: domain.Chunk{ID: id, DocumentID: "doc", Text: id, Tokens: 8, ParentIndex: &p0, Context: "passage", ContextTokens: 100},
			Relevance: rel, Coverage: cov}
	}
	cands := []Candidate{unit("a", 0.9, 0.8), unit("b", 0.5, 1), unit("c", 0.1, 0.1)}
	st := domain.RetrievalStrategy{TopK: 5, ScoreThreshold: 0.3, MaxEvidenceTokens: 150}
	cands, evidence, tokens := choose(st, cands)
	assert.Len(t, evidence, 2)
	assert.Equal(t, 100, tokens, "two units of one passage read it once")
	assert.Equal(t, "below_threshold", cands[2].Dropped)
	e := evidenceOf(cands, len(evidence), tokens)
	assert.Equal(t, confidence.Evidence{Hits: 2, TopScore: 0.9, MeanTopScore: 0.7, Answerability: 0.8, EvidenceTokens: 100}, e)
	assert.InDelta(t, 0.4, margin(cands), 1e-9)
}

func TestHybridHitsAreJudgedAsMergedOnes(t *testing.T) {
	v, l := 0.5, 7.5
	got := fromHybrid([]domain.HybridHit{{ChunkID: "a", VectorScore: &v, LexicalScore: &l}, {ChunkID: "b", VectorScore: &v}})
	want := merge([]domain.VectorHit{{ChunkID: "a", Score: 0.5}, {ChunkID: "b", Score: 0.5}}, []domain.LexicalHit{{ChunkID: "a", Score: 7.5}})
	assert.Equal(t, want, got, "a hybrid store's candidates carry the raw scores the two lists would")
}

// Equal relevance is broken by the place in the document, which an
// upload does not change, and not by the chunk id, which it does: the
// same knowledge answers the same way every time.
func TestTiesGoToTheEarlierPlaceInTheDocument(t *testing.T) {
	at := func(id, doc string, index int32, rel float64) Candidate {
		return Candidate{Chunk: domain.Chunk{ID: id, DocumentID: doc, Index: index}, Relevance: rel}
	}
	for _, c := range []struct {
		name string
		a, b Candidate
		want bool
	}{
		{"more relevant first", at("z", "d1", 9, 0.8), at("a", "d1", 0, 0.7), true},
		{"same document: earlier first", at("z", "d1", 1, 0.7), at("a", "d1", 2, 0.7), true},
		{"same document: later second", at("a", "d1", 2, 0.7), at("z", "d1", 1, 0.7), false},
		{"other documents: by id", at("a", "d2", 5, 0.7), at("b", "d1", 1, 0.7), true},
	} {
		assert.Equal(t, c.want, ahead(c.a, c.b), c.name)
	}
}
