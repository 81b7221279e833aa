package guard

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchGuard has 1,000 forbidden words (English-like and Chinese, both
// modes, mostly masks), a few rules, and the default high-risk lists.
func benchGuard(b *testing.B, extra ...BehaviorRule) *Guard {
	rng := rand.New(rand.NewPCG(1, 2))
	const letters = "abcdefghijklmnopqrstuvwxyz"
	han := []rune("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正")
	ws := make([]ForbiddenWord, 0, 1000)
	for i := 0; len(ws) < 1000; i++ {
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
		mode := ModeExact
		if i%3 == 0 {
			mode = ModeContains
		}
		ws = append(ws, ForbiddenWord{ID: fmt.Sprint(i), Word: w.String(), Mode: mode})
	}
	// Some real words the answer will hit.
	ws[0] = ForbiddenWord{ID: "0", Word: "cheap"}
	ws[1] = ForbiddenWord{ID: "1", Word: "guarantee", Mode: ModeContains}
	ws[3] = ForbiddenWord{ID: "3", Word: "坏蛋", Mode: ModeContains}
	g, err := Compile(Config{Words: ws, Rules: append([]BehaviorRule{
		{ID: "r", Kind: RuleContains, Pattern: "refund", Action: ActionAppend, Text: "Refunds take 5 days."},
	}, extra...)})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// benchAnswer is a 2 KB answer, mostly English with some Chinese.
func benchAnswer() string {
	const para = "Thanks for reaching out! Your order ships within three business days, and you can track it from the " +
		"account page. If the item arrives damaged we guarantee a full refund or a cheap replacement. 如有问题请联系客服，我们会尽快处理。 "
	var b strings.Builder
	for b.Len() < 2048 {
		b.WriteString(para)
	}
	return b.String()[:2048]
}

func BenchmarkCheckOutput(b *testing.B) {
	g := benchGuard(b)
	text := benchAnswer()
	if len(g.CheckOutput(text).Hits) == 0 {
		b.Fatal("the answer should hit")
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		g.CheckOutput(text)
	}
}

func BenchmarkCheckInput(b *testing.B) {
	g := benchGuard(b)
	text := benchAnswer()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		g.CheckInput(text)
	}
}

// BenchmarkStream100Deltas streams the same answer in 100 deltas (about
// 20 bytes each, as a model's tokens come in batches) and closes it.
func BenchmarkStream100Deltas(b *testing.B) {
	benchStream(b, benchGuard(b), benchAnswer(), 100)
}

// benchStream streams text through g in n deltas of equal size per
// iteration.
func benchStream(b *testing.B, g *Guard, text string, n int) {
	var deltas []string
	for i := range n {
		deltas = append(deltas, text[i*len(text)/n:(i+1)*len(text)/n])
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		st := g.NewStream()
		for _, d := range deltas {
			st.Write(d)
		}
		st.Close()
	}
}

func BenchmarkCompile1000Words(b *testing.B) {
	benchGuard(b)
	b.ReportAllocs()
	for b.Loop() {
		benchGuard(b)
	}
}

// BenchmarkStream100DeltasWithRegex adds one withholding regex rule: a
// stream runs it over the text so far at every delta, so its cost grows
// with the square of the answer's length.
func BenchmarkStream100DeltasWithRegex(b *testing.B) {
	g := benchGuard(b, BehaviorRule{ID: "acct", Kind: RuleRegex, Pattern: `\baccount (number|no\.?) \d{6,}`,
		Action: ActionReplace, Text: "No account numbers."})
	text := benchAnswer()
	var deltas []string
	for i := 0; i < 100; i++ {
		deltas = append(deltas, text[i*len(text)/100:(i+1)*len(text)/100])
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		st := g.NewStream()
		for _, d := range deltas {
			st.Write(d)
		}
		st.Close()
	}
}
