package offline

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/text/unicode/norm"
)

// appendNFKC's shortcut must never change the result: compare it with the
// full normaliser on texts mixing stable characters with the ones that
// decompose or compose with their neighbours.
func TestAppendNFKCEqualsNFKC(t *testing.T) {
	fixed := []string{
		"", "plain ascii", "café", "cafe\u0301", "e\u0301\u0301x", "\u0301start",
		"ｆｕｌｌｗｉｄｔｈ，退款。", "ﬁnal ²", "か\u3099き\u309a", "コーヒー ｶﾀｶﾅ",
		"한\u11a8글", "\u1100\u1161\u11a8", "À\u0323", "x\xffy\xc3", "退款\u0301政策", "Ａ\u0301", "ＡＢ\u0301", "\u3000\u0301", "，\uff01",
	}
	pool := []rune("aZ9 é退款政策がか\u3099\u309aコー한가\u11a8\u1100\u1161\u0301\u0323ﬁ²，。、ｱｶﾞ①Ⅻ\u00a0\u3000ÀÅ\u212bＡｚ～\u0627\u0653")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteRune(pool[rng.IntN(len(pool))])
		}
		fixed = append(fixed, b.String())
	}
	for _, s := range fixed {
		assert.Equal(t, norm.NFKC.String(s), string(appendNFKC(nil, s)), "%q", s)
	}
}
