package domain

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

func codes(f []RiskFinding) map[string]RiskLevel {
	out := map[string]RiskLevel{}
	for _, x := range f {
		out[x.Code] = x.Level
	}
	return out
}

func TestAssessStrategy(t *testing.T) {
	neural := CalibrationFor("text-embedding-3-small")
	base := RetrievalStrategy{Mode: ModeVector, TopK: 3, ScoreThreshold: 0.3, MaxEvidenceTokens: 2000, MinHits: 1,
		MinTopScore: 0.3, MinEvidenceTokens: 20, TransferConfidenceThreshold: 0.5, MinAnswerability: 0.4}
	assert.Empty(t, AssessStrategy(base, nil, neural), "a sane strategy has no findings")

	lax := base
	lax.MinHits, lax.MinTopScore, lax.MinEvidenceTokens, lax.TransferConfidenceThreshold = 0, 0, 0, 0
	assert.Equal(t, RiskMedium, codes(AssessStrategy(lax, nil, neural))["answers_everything"])

	unchecked := base
	unchecked.MinAnswerability = 0
	assert.Equal(t, RiskMedium, codes(AssessStrategy(unchecked, nil, neural))["no_answerability_check"])

	lexical := CalibrationFor(OfflineEmbeddingModel)
	assert.Equal(t, RiskMedium, codes(AssessStrategy(base, nil, lexical))["lexical_model_vector_mode"], "the check knows the calibration")
	def := DefaultStrategy(TenantSettings{RetrievalScoreThreshold: 0.25, MinTopScore: 0.25, MinHits: 1, MinEvidenceTokens: 20,
		TransferConfidenceThreshold: 0.35}, lexical)
	assert.Equal(t, RiskLow, HighestRisk(AssessStrategy(def, nil, lexical)), "the lexical model's default strategy: at most a low finding")
	assert.NotContains(t, codes(AssessStrategy(def, nil, lexical)), "lexical_model_vector_mode")
	leaning := def
	leaning.LexicalWeight = 0.2
	assert.Equal(t, RiskLow, codes(AssessStrategy(leaning, nil, lexical))["lexical_model_low_weight"])

	recent := make([]RetrievalEvent, 30)
	for i := range recent {
		recent[i] = RetrievalEvent{Hits: 2, TopScore: 0.4, EvidenceTokens: 100}
	}
	strict := base
	strict.MinTopScore = 0.5
	assert.Equal(t, RiskHigh, codes(AssessStrategy(strict, recent, neural))["transfers_most"], "judged on recent traffic")
	assert.NotContains(t, codes(AssessStrategy(strict, recent[:10], neural)), "transfers_most", "too little traffic to judge")
	assert.Equal(t, RiskHigh, HighestRisk(AssessStrategy(strict, recent, neural)))
	assert.Equal(t, RiskLevel(""), HighestRisk(nil))
}

func TestStrategyIDIsStable(t *testing.T) {
	a := RetrievalStrategy{Mode: ModeHybrid, TopK: 5}
	b := a
	assert.Equal(t, a.ID(), b.ID())
	b.TopK = 6
	assert.NotEqual(t, a.ID(), b.ID())
	assert.Regexp(t, `^stg_[0-9a-f]{16}$`, a.ID())
}

// Every field of a strategy is part of its id: a field added to the
// struct but forgotten in ID would let two strategies share one. The test
// changes each field in turn, by reflection, and wants a new id each time.
func TestStrategyIDCoversEveryField(t *testing.T) {
	base := RetrievalStrategy{Mode: ModeHybrid, TopK: 5, ScoreThreshold: 0.3, LexicalWeight: 0.5, MaxEvidenceTokens: 2000,
		MinHits: 1, MinTopScore: 0.4, MinEvidenceTokens: 20, TransferConfidenceThreshold: 0.6, MinAnswerability: 0.4}
	v := reflect.ValueOf(base)
	for i := range v.NumField() {
		changed := base
		f := reflect.ValueOf(&changed).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Int32, reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Float64, reflect.Float32:
			f.SetFloat(f.Float() + 0.01)
		default:
			t.Fatalf("field %s of kind %s: teach this test (and ID) about it", v.Type().Field(i).Name, f.Kind())
		}
		assert.NotEqual(t, base.ID(), changed.ID(), "field %s is not part of the strategy's id", v.Type().Field(i).Name)
	}
}
