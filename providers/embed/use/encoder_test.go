package use

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/viterin/vek/vek32"
)

func TestEmbedGivesUnitVectors(t *testing.T) {
	enc := encoderForTest(t)
	cases := []struct {
		name string
		text string
	}{
		{"question", "When do I get my money back?"},
		{"empty", ""},
		{"longer than MaxTokens", strings.Repeat("refund ", 3*MaxTokens)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := enc.Embed([]string{tc.text})
			require.NoError(t, err)
			require.Len(t, v, 1)
			require.Len(t, v[0], Dim)
			assert.InDelta(t, 1, vek32.Norm(v[0]), 1e-5)
		})
	}
	none, err := enc.Embed(nil)
	require.NoError(t, err)
	assert.Empty(t, none)
}

// TestEmbedBatchEqualsSingle: a text's vector does not depend on the
// texts encoded with it.
func TestEmbedBatchEqualsSingle(t *testing.T) {
	enc := encoderForTest(t)
	texts := []string{"Refunds are paid within 5 working days", "", "Do you sell concert tickets?", "hi"}
	batch, err := enc.Embed(texts)
	require.NoError(t, err)
	for i, s := range texts {
		one, err := enc.Embed([]string{s})
		require.NoError(t, err)
		assert.InDeltaSlice(t, toF64(one[0]), toF64(batch[i]), 1e-6, s)
	}
}

// TestEmbedConcurrently: one Encoder serves many goroutines (run with
// -race) and gives each the same vectors.
func TestEmbedConcurrently(t *testing.T) {
	enc := encoderForTest(t)
	texts := []string{"When do I get my money back?", "Where is my parcel?"}
	want, err := enc.Embed(texts)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 5 {
				got, err := enc.Embed(texts[g%2:])
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, want[g%2:], got)
			}
		})
	}
	wg.Wait()
}

// TestCalibration: the model ranks a paraphrase above an unrelated
// question, and its cosines sit where the calibration hint says.
func TestCalibration(t *testing.T) {
	enc := encoderForTest(t)
	q := "When do I get my money back?"
	cases := []struct {
		other    string
		min, max float32
	}{
		{"Refunds are paid within 5 working days", CosineRelated, 1},
		{"How long does a refund take?", CosineRelated, 1},
		{"Do you sell concert tickets?", -1, CosineUnrelated},
		{"The weather is nice today", -1, CosineUnrelated},
	}
	for _, tc := range cases {
		t.Run(tc.other, func(t *testing.T) {
			v, err := enc.Embed([]string{q, tc.other})
			require.NoError(t, err)
			cos := vek32.Dot(v[0], v[1])
			t.Logf("cos(%q, %q) = %.3f", q, tc.other, cos)
			assert.GreaterOrEqual(t, cos, tc.min)
			assert.LessOrEqual(t, cos, tc.max)
		})
	}
}

// toF64 widens v for testify's InDeltaSlice.
func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
