package use

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMeaningRatesEnglishSentencesByMeaning(t *testing.T) {
	m := NewMeaning(encoderForTest(t), 3)
	sentences := []string{
		"Our showroom is open on Saturdays.",
		"Refunds are paid within 5 working days.",
		"退款将在5个工作日内原路返回。",
	}
	got := m.Similar("When do I get my money back?", sentences)
	require.Len(t, got, 3)
	// The refund sentence shares no word with the question and means it.
	assert.Greater(t, got[1], got[0])
	assert.Greater(t, got[1], CosineRelated-0.05)
	// A Chinese sentence is not rated, nor a Chinese question.
	assert.Zero(t, got[2])
	assert.Nil(t, m.Similar("我什么时候能拿到退款？", sentences))

	// The cache holds at most 3 vectors, and what it keeps changes no
	// rating.
	again := m.Similar("When do I get my money back?", append([]string{"Gift cards are valid for 3 years."}, sentences...))
	assert.LessOrEqual(t, len(m.vecs), 3)
	assert.InDelta(t, got[1], again[2], 1e-6)
	assert.InDelta(t, got[0], again[1], 1e-6)
}
