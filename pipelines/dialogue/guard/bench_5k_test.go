package guard

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// guard5k compiles 5,000 forbidden words (a quarter Chinese, a third
// contains), two rules and the default high-risk lists: the issue's
// benchmark tenant.
func guard5k(b *testing.B) *Guard {
	rng := rand.New(rand.NewPCG(5, 5000))
	const letters = "abcdefghijklmnopqrstuvwxyz"
	han := []rune("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正")
	seen := map[string]bool{}
	ws := make([]ForbiddenWord, 0, 5000)
	for i := 0; len(ws) < 5000; i++ {
		var w strings.Builder
		n := 4 + rng.IntN(6)
		if i%4 == 3 {
			for range n / 2 {
				w.WriteRune(han[rng.IntN(len(han))])
			}
		} else {
			for range n {
				w.WriteByte(letters[rng.IntN(len(letters))])
			}
		}
		if seen[w.String()] {
			continue
		}
		seen[w.String()] = true
		mode := ModeExact
		if i%3 == 0 {
			mode = ModeContains
		}
		ws = append(ws, ForbiddenWord{ID: fmt.Sprint(i), Word: w.String(), Mode: mode})
	}
	ws[0] = ForbiddenWord{ID: "0", Word: "cheap"}
	ws[1] = ForbiddenWord{ID: "1", Word: "guarantee", Mode: ModeContains}
	g, err := Compile(Config{Words: ws, Rules: []BehaviorRule{
		{ID: "r1", Kind: RuleContains, Pattern: "refund", Action: ActionAppend, Text: "Refunds take 5 days."},
		{ID: "r2", Kind: RuleRegex, Pattern: `\baccount (number|no\.?) \d{6,}`, Action: ActionReplace, Text: "No account numbers."},
	}})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// answer500 is a ~500-character answer, English with some Chinese.
func answer500() string {
	const para = "Thanks for reaching out! Your order ships within three business days, and you can track it from the " +
		"account page. If the item arrives damaged we guarantee a full refund or a cheap replacement. 如有问题请联系客服，我们会尽快处理。 "
	var b strings.Builder
	for len([]rune(b.String())) < 500 {
		b.WriteString(para)
	}
	return string([]rune(b.String())[:500])
}

// BenchmarkCheckOutput5kWords is the guard budget: one answer of
// about 500 characters against 5,000 words must take at most 1 ms.
func BenchmarkCheckOutput5kWords(b *testing.B) {
	g := guard5k(b)
	text := answer500()
	if len(g.CheckOutput(text).Hits) == 0 {
		b.Fatal("the answer should hit")
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		g.CheckOutput(text)
	}
}

// BenchmarkStream5kWords streams the same answer in 25 deltas.
func BenchmarkStream5kWords(b *testing.B) {
	benchStream(b, guard5k(b), answer500(), 25)
}

func BenchmarkCompile5kWords(b *testing.B) {
	guard5k(b)
	b.ReportAllocs()
	for b.Loop() {
		guard5k(b)
	}
}
