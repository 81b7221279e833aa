package analysis

import (
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stemsTexts mix what the cache stems (English words), what it passes by
// (stop words, short words, numbers and codes, accented and CJK text) and
// irregular forms.
var stemsTexts = []string{
	"How do I return my mattresses? Returned items are refunded within 14 days.",
	"Open 9am–5pm, order A-12345; the children's shoes were bought on 2024-05-01",
	"ＡＢＣ Ｆｉｌｅ naïve café résumé: 退款流程 怎么退货吗",
	"Hi, I'd like to know, please: went, gone, mice, feet, better, running, ran",
	"Shipping shipped ships shipper; warranties warranty warrantied; cancelling cancelled",
}

// A cache gives the terms AppendTerms gives, whether the words are new to
// it, cached already, or past its bound, and from goroutines at once.
func TestStemsGiveTheTermsOfAppendTerms(t *testing.T) {
	for _, max := range []int{0, 5, 1000} {
		c := NewStems(max)
		for round := range 3 {
			var wg sync.WaitGroup
			for _, text := range stemsTexts {
				wg.Go(func() {
					assert.Equal(t, Terms(text), c.Terms(text), "max %d, round %d: %s", max, round, text)
					assert.Equal(t, AppendTerms([]string{"x"}, text), c.AppendTerms([]string{"x"}, text))
				})
			}
			wg.Wait()
		}
		assert.LessOrEqual(t, c.Len(), max+len(stemsTexts), "max %d", max)
		if max >= 1000 {
			assert.Positive(t, c.Len())
		}
	}
}

// The cache keeps copies, not the texts its words were cut from.
func TestStemsKeepNoText(t *testing.T) {
	c := NewStems(100)
	text := strings.Repeat("refunds ", 1000)
	require.Equal(t, "refund", c.Terms(text)[0])
	lo := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	inText := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return lo <= p && p < lo+uintptr(len(text))
	}
	n := 0
	c.m.Range(func(k, v any) bool {
		assert.False(t, inText(k.(string)), "word %q", k)
		assert.False(t, inText(v.(string)), "stem %q", v)
		n++
		return true
	})
	assert.Equal(t, 1, n)
}
