package confidence

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func nan() float64 { return math.NaN() }

// below returns the float just below x.
func below(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }

// defaults are the service's default thresholds.
var defaults = Thresholds{MinHits: 1, MinTopScore: 0.25, MinEvidenceTokens: 20, TransferConfidence: 0.35, MinAnswerability: 0.4}

func TestConfidenceFormula(t *testing.T) {
	cases := []struct {
		name string
		e    Evidence
		t    Thresholds
		want float64
	}{
		{"no hits", Evidence{}, defaults, 0},
		{"no hits, whatever the scores", Evidence{TopScore: 0.9, MeanTopScore: 0.9, Answerability: 1, EvidenceTokens: 500}, defaults, 0},
		// 0.45·0.8 + 0.35·0.9 + 0.10·(0.7·3/3) + 0.10·min(1, 60/40) = 0.36 + 0.315 + 0.07 + 0.1
		{"three hits", Evidence{Hits: 3, TopScore: 0.8, MeanTopScore: 0.7, Answerability: 0.9, EvidenceTokens: 60}, defaults, 0.845},
		// One hit: support is a third of its score. 0.36 + 0.315 + 0.1·0.8/3 + 0.1
		{"one hit", Evidence{Hits: 1, TopScore: 0.8, MeanTopScore: 0.8, Answerability: 0.9, EvidenceTokens: 60}, defaults, 0.8017},
		// More than three hits add no support.
		{"five hits", Evidence{Hits: 5, TopScore: 0.8, MeanTopScore: 0.7, Answerability: 0.9, EvidenceTokens: 60}, defaults, 0.845},
		// Evidence that does not answer the question: 0.36 + 0 + 0.07 + 0.1
		{"no answerability", Evidence{Hits: 3, TopScore: 0.8, MeanTopScore: 0.7, EvidenceTokens: 60}, defaults, 0.53},
		// Coverage: 20 of 2·20 tokens is half. 0.36 + 0.315 + 0.07 + 0.05
		{"half coverage", Evidence{Hits: 3, TopScore: 0.8, MeanTopScore: 0.7, Answerability: 0.9, EvidenceTokens: 20}, defaults, 0.795},
		// A minimum of 0 tokens counts as 20.
		{"min tokens 0", Evidence{Hits: 3, TopScore: 0.8, MeanTopScore: 0.7, Answerability: 0.9, EvidenceTokens: 20}, Thresholds{}, 0.795},
		{"perfect", Evidence{Hits: 3, TopScore: 1, MeanTopScore: 1, Answerability: 1, EvidenceTokens: 1000}, defaults, 1},
		{"over 1 clamped", Evidence{Hits: 3, TopScore: 1.5, MeanTopScore: 2, Answerability: 3, EvidenceTokens: 1000}, defaults, 1},
		{"negative scores", Evidence{Hits: 2, TopScore: -0.2, MeanTopScore: -0.4, Answerability: -1, EvidenceTokens: 40}, defaults, 0.1},
		{"NaN scores", Evidence{Hits: 2, TopScore: nan(), MeanTopScore: nan(), Answerability: nan(), EvidenceTokens: 40}, defaults, 0.1},
		{"negative counts", Evidence{Hits: -3, TopScore: 0.9, MeanTopScore: 0.9, EvidenceTokens: -5}, defaults, 0},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Decide(c.e, c.t).Confidence, c.name)
	}
}

func TestDecideBoundaries(t *testing.T) {
	// good passes every default threshold with room to spare: confidence
	// 0.845. Each case moves one input (or threshold) to its boundary.
	good := Evidence{Hits: 3, TopScore: 0.8, MeanTopScore: 0.7, Answerability: 0.9, EvidenceTokens: 60}
	conf := Decide(good, defaults).Confidence
	require.Equal(t, 0.845, conf)
	with := func(f func(*Evidence, *Thresholds)) (Evidence, Thresholds) {
		e, th := good, defaults
		f(&e, &th)
		return e, th
	}
	cases := []struct {
		name         string
		f            func(*Evidence, *Thresholds)
		insufficient bool
		transfer     bool
		reason       string
	}{
		{"all pass", func(*Evidence, *Thresholds) {}, false, false, ""},
		// MinHits.
		{"hits = minHits", func(e *Evidence, t *Thresholds) { t.MinHits = 3 }, false, false, ""},
		{"hits = minHits − 1", func(e *Evidence, t *Thresholds) { t.MinHits = 4 }, true, true, ReasonInsufficientEvidence},
		{"hits 0 < minHits 1", func(e *Evidence, t *Thresholds) { e.Hits, e.TopScore, e.MeanTopScore = 0, 0, 0 }, true, true, ReasonNoEvidence},
		{"hits 1 = minHits 1", func(e *Evidence, t *Thresholds) { e.Hits = 1 }, false, false, ""},
		// MinTopScore.
		{"top = minTopScore", func(e *Evidence, t *Thresholds) { t.MinTopScore = 0.8 }, false, false, ""},
		{"top just below minTopScore", func(e *Evidence, t *Thresholds) { e.TopScore = below(0.25) }, true, true, ReasonLowScore},
		// Every signal at its minimum suffices, but 0.45·0.25 + 0.35·0.4 +
		// 0.1·0.25 + 0.1·0.5 = 0.3275 < 0.35.
		{"everything at its minimum", func(e *Evidence, t *Thresholds) {
			e.TopScore, e.MeanTopScore, e.Answerability, e.EvidenceTokens = 0.25, 0.25, 0.4, 20
		}, false, true, ReasonLowConfidence},
		// MinAnswerability.
		{"answerability = min", func(e *Evidence, t *Thresholds) { e.Answerability = 0.4 }, false, false, ""},
		{"answerability just below min", func(e *Evidence, t *Thresholds) { e.Answerability = below(0.4) }, true, true, ReasonLowAnswerability},
		{"min answerability 0 turns the check off", func(e *Evidence, t *Thresholds) { e.Answerability, t.MinAnswerability = 0, 0 }, false, false, ""},
		// MinEvidenceTokens.
		{"tokens = min", func(e *Evidence, t *Thresholds) { e.EvidenceTokens = 20 }, false, false, ""},
		{"tokens = min − 1", func(e *Evidence, t *Thresholds) { e.EvidenceTokens = 19 }, true, true, ReasonInsufficientEvidence},
		{"tokens 0, min 0", func(e *Evidence, t *Thresholds) { e.EvidenceTokens, t.MinEvidenceTokens = 0, 0 }, false, false, ""},
		// TransferConfidence.
		{"confidence = threshold", func(e *Evidence, t *Thresholds) { t.TransferConfidence = conf }, false, false, ""},
		{"confidence just below threshold", func(e *Evidence, t *Thresholds) { t.TransferConfidence = math.Nextafter(conf, 1) }, false, true, ReasonLowConfidence},
		{"threshold 0", func(e *Evidence, t *Thresholds) { t.TransferConfidence = 0 }, false, false, ""},
		{"threshold 1", func(e *Evidence, t *Thresholds) { t.TransferConfidence = 1 }, false, true, ReasonLowConfidence},
		// Several at once: the documented order.
		{"low score and few tokens", func(e *Evidence, t *Thresholds) { e.TopScore, e.EvidenceTokens = 0.1, 5 }, true, true, ReasonLowScore},
		{"low score and low answerability", func(e *Evidence, t *Thresholds) { e.TopScore, e.Answerability = 0.1, 0.1 }, true, true, ReasonLowScore},
		{"low answerability and few tokens", func(e *Evidence, t *Thresholds) { e.Answerability, e.EvidenceTokens = 0.1, 5 }, true, true, ReasonLowAnswerability},
		{"few hits and low score", func(e *Evidence, t *Thresholds) { t.MinHits, e.TopScore = 4, 0.1 }, true, true, ReasonLowScore},
		{"few hits and few tokens", func(e *Evidence, t *Thresholds) { t.MinHits, e.EvidenceTokens = 4, 5 }, true, true, ReasonInsufficientEvidence},
		{"no hits and everything", func(e *Evidence, t *Thresholds) { *e = Evidence{} }, true, true, ReasonNoEvidence},
		{"no hits, thresholds 0", func(e *Evidence, t *Thresholds) { *e, *t = Evidence{}, Thresholds{TransferConfidence: 0.5} }, false, true, ReasonLowConfidence},
		{"no hits, nothing asked", func(e *Evidence, t *Thresholds) { *e, *t = Evidence{}, Thresholds{} }, false, false, ""},
	}
	for _, c := range cases {
		e, th := with(c.f)
		d := Decide(e, th)
		assert.Equal(t, c.insufficient, d.Insufficient, "%s: insufficient", c.name)
		assert.Equal(t, c.transfer, d.ShouldTransfer, "%s: transfer", c.name)
		assert.Equal(t, c.reason, d.Reason, "%s: reason", c.name)
		assert.Equal(t, d.Insufficient || d.Confidence < th.TransferConfidence, d.ShouldTransfer, c.name)
	}
}

// The "no hits" case above is worth spelling out: with minHits 1 but a top
// score kept at 0.8 (inconsistent input), zero hits still means no
// evidence.
func TestNoHitsIsNoEvidence(t *testing.T) {
	d := Decide(Evidence{Hits: 0, TopScore: 0.8, MeanTopScore: 0.7, EvidenceTokens: 60}, defaults)
	assert.True(t, d.Insufficient)
	assert.Equal(t, ReasonNoEvidence, d.Reason)
	assert.Zero(t, d.Confidence)
}

func TestDecisionCarriesTheNumbers(t *testing.T) {
	d := Decide(Evidence{Hits: 2, TopScore: 1.7, MeanTopScore: 0.5, Answerability: 0.6, EvidenceTokens: 33},
		Thresholds{MinHits: 1, MinTopScore: 0.25, MinEvidenceTokens: 40, TransferConfidence: 0.6, MinAnswerability: 0.4})
	assert.Equal(t, Decision{
		Confidence: d.Confidence, Insufficient: true, ShouldTransfer: true, Reason: ReasonInsufficientEvidence,
		Hits: 2, TopScore: 1, MinTopScore: 0.25, EvidenceTokens: 33, MinEvidenceTokens: 40, MinHits: 1,
		Answerability: 0.6, MinAnswerability: 0.4, Threshold: 0.6,
	}, d)
	// 0.45·1 + 0.35·0.6 + 0.1·0.5·2/3 + 0.1·33/80
	assert.Equal(t, 0.7346, d.Confidence)
}

// Better evidence never lowers the confidence, and never turns an answer
// into a hand-off: each input is raised alone, from random evidence under
// random thresholds.
func TestMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	randEvidence := func() Evidence {
		return Evidence{
			Hits:           rng.IntN(7),
			TopScore:       rng.Float64()*1.4 - 0.2, // a little outside [0, 1] too
			MeanTopScore:   rng.Float64()*1.4 - 0.2,
			Answerability:  rng.Float64()*1.4 - 0.2,
			EvidenceTokens: rng.IntN(200),
		}
	}
	raise := []func(*Evidence){
		func(e *Evidence) { e.Hits += 1 + rng.IntN(3) },
		func(e *Evidence) { e.TopScore += rng.Float64() * 0.3 },
		func(e *Evidence) { e.MeanTopScore += rng.Float64() * 0.3 },
		func(e *Evidence) { e.Answerability += rng.Float64() * 0.3 },
		func(e *Evidence) { e.EvidenceTokens += 1 + rng.IntN(50) },
	}
	for range 20000 {
		th := Thresholds{
			MinHits: rng.IntN(4), MinTopScore: rng.Float64() * 0.6,
			MinEvidenceTokens: rng.IntN(60), TransferConfidence: rng.Float64(), MinAnswerability: rng.Float64() * 0.8,
		}
		e := randEvidence()
		d := Decide(e, th)
		require.GreaterOrEqual(t, d.Confidence, 0.0)
		require.LessOrEqual(t, d.Confidence, 1.0)
		for i, r := range raise {
			better := e
			r(&better)
			b := Decide(better, th)
			require.GreaterOrEqual(t, b.Confidence, d.Confidence, "input %d: %+v → %+v", i, e, better)
			require.False(t, d.Insufficient == false && b.Insufficient, "input %d made the evidence insufficient: %+v → %+v", i, e, better)
			require.False(t, !d.ShouldTransfer && b.ShouldTransfer, "input %d made it transfer: %+v → %+v", i, e, better)
		}
	}
}

func TestFormulaDocumented(t *testing.T) {
	for _, s := range []string{"0.45", "0.35", "0.10", "three", "minEvidenceTokens", "answerability", "minAnswerability",
		"calibration", "no_evidence", "low_score", "low_answerability", "insufficient_evidence", "low_confidence"} {
		assert.Contains(t, Formula, s)
	}
	assert.Contains(t, Formula, "counts as 20")
	assert.Equal(t, 20, domain.DefaultMinEvidenceTokens, "Formula says a minimum of 0 tokens counts as 20")
}
