package guard

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamGuard has words of every mode and action, overlapping words,
// multi-rune and CJK words, rules of each kind and the default high-risk
// lists.
func streamGuard(t testing.TB) *Guard {
	return compile(t, Config{
		SafeText: "SAFE",
		Words: []ForbiddenWord{
			{ID: "ass", Word: "ass"},
			{ID: "bad", Word: "bad", Mode: ModeContains},
			{ID: "abc", Word: "abc", Mode: ModeContains, Replacement: "[1]"},
			{ID: "bcd", Word: "bcd", Mode: ModeContains, Replacement: "[2]"},
			{ID: "egg", Word: "坏蛋", Mode: ModeContains},
			{ID: "cafe", Word: "café", Replacement: "coffee"},
			{ID: "fm", Word: "free money"},
			{ID: "bomb", Word: "bomb", Action: ActionBlock},
			{ID: "sue", Word: "起诉", Mode: ModeContains, Action: ActionTransfer},
		},
		Rules: []BehaviorRule{
			{ID: "note", Kind: RuleContains, Pattern: "refund", Action: ActionAppend, Text: "Refunds take 5 days."},
			{ID: "ship", Kind: RuleRegex, Pattern: `ship(ping)? (in|within) \d+ days`, Action: ActionAppend, Text: "Shipping times vary."},
			{ID: "pw", Kind: RuleRegex, Pattern: `\bpassword is \w+`, Action: ActionReplace, Text: "No secrets."},
			{ID: "med", Kind: RuleHighRisk, Category: CategoryMedicalEmergency, Action: ActionAppend, Text: "Call 120."},
		},
		HighRisk: []HighRisk{{Category: "fraud", Keywords: []string{"wire it"}, Patterns: []string{`gift ?cards?`}}},
	})
}

// streamTexts contain the words, split naturally in many ways.
var streamTexts = []string{
	"This class is an ass, ＢＡＤ and badbad, xabcdx overlaps.",
	"你这个坏蛋，真是坏坏蛋蛋。坏蛋",
	"A cafe\u0301 and a café and a cafe.",
	"Get FREE\n  money now, free money!",
	"ends with ass",
	"bad",
	"assume the class is fine; nothing here at all",
	"Ask for a refund; we ship within 3 days. bad.",
	"All fine until a bomb appears, and then more text follows bad bad.",
	"我们会起诉你们的坏蛋",
	"Your password is hunter2, bad",
	"Honestly I want to kill myself today",
	"bad\xffbad ＢＡＤ\xe4\xb8",
	"",
	"   ",
	"ａｂｃｄ ﾊﾞｶ",
	"Chest pain can be bad; see a doctor about chest pain. 胸痛也是。",
	"Please pay with GIFT CARDS only, it is not bad at all",
	"Just wire it to us and all will be bad",
}

// maskedOnly is text with its mask words replaced and nothing else: what
// a stream may have released of it, whatever else happens.
func maskedOnly(g *Guard, text string) string {
	var sc scan
	sc.init(g, false, len(text))
	sc.advance(text, true)
	fs := g.hits(text, &sc.nt, sc.matches, false)
	var b strings.Builder
	writeMasked(&b, text, 0, len(text), maskSpans(g, fs))
	return b.String()
}

// checkStream streams text in the given deltas and checks the stream's
// promises against CheckOutput of the whole.
func checkStream(t *testing.T, g *Guard, text string, deltas []string) {
	t.Helper()
	want := g.CheckOutput(text)
	masked := maskedOnly(g, text)
	// The first withholding word or keyword: nothing from it on may have
	// been released.
	firstStop := len(text)
	for _, h := range want.Hits {
		src := g.sources[g.hitSource(h)]
		if src.stops && !isRegexSource(g, h) {
			firstStop = min(firstStop, h.Start)
		}
	}

	st := g.NewStream()
	var released strings.Builder
	var stopped *Verdict
	for i, d := range deltas {
		r, v := st.Write(d)
		if stopped != nil {
			require.Empty(t, r, "released after the stop: %q %q", text, deltas)
			require.Same(t, stopped, v)
			continue
		}
		released.WriteString(r)
		require.True(t, strings.HasPrefix(masked, released.String()),
			"released %q is not a prefix of %q (deltas %q, after %d)", released.String(), masked, deltas, i)
		require.LessOrEqual(t, st.released, firstStop, "released a withholding word: %q %q", text, deltas)
		if v != nil {
			require.True(t, v.Withheld())
			require.True(t, want.Withheld(), "stopped mid-stream but the whole is fine: %q %q", text, deltas)
			stopped = v
		}
	}
	rest, final := st.Close()
	require.Equal(t, want, final, "final verdict: %q %q", text, deltas)
	if stopped != nil || want.Withheld() {
		require.Empty(t, rest)
		return
	}
	released.WriteString(rest)
	require.Equal(t, want.Text, released.String(), "released text: %q %q", text, deltas)
}

// hitSource finds the source of a hit (tests only: the linear search is
// fine).
func (g *Guard) hitSource(h Hit) int32 {
	for i, s := range g.sources {
		if s.kind == h.Kind && s.id == h.ID && s.pattern == h.Pattern && (h.Kind != HitHighRisk || s.category == h.Category) {
			return int32(i)
		}
	}
	panic("no source for " + h.Pattern)
}

// isRegexSource reports whether the hit comes from a regular expression.
func isRegexSource(g *Guard, h Hit) bool {
	src := g.hitSource(h)
	for _, r := range g.regexes {
		if r.source == src {
			return true
		}
	}
	return false
}

func TestStreamEveryTwoWaySplit(t *testing.T) {
	g := streamGuard(t)
	for _, text := range streamTexts {
		for cut := 0; cut <= len(text); cut++ {
			checkStream(t, g, text, []string{text[:cut], text[cut:]})
		}
	}
}

func TestStreamRandomSplits(t *testing.T) {
	g := streamGuard(t)
	rng := rand.New(rand.NewPCG(2024, 6))
	for _, text := range streamTexts {
		for round := 0; round < 200; round++ {
			checkStream(t, g, text, randomSplit(rng, text))
		}
		// One byte at a time, and one delta.
		checkStream(t, g, text, strings.Split(text, ""))
		checkStream(t, g, text, []string{text})
		bytes := make([]string, len(text))
		for i := 0; i < len(text); i++ {
			bytes[i] = text[i : i+1]
		}
		checkStream(t, g, text, bytes)
	}
}

// randomSplit cuts text at random byte offsets (even inside characters).
func randomSplit(rng *rand.Rand, text string) []string {
	cuts := []int{0, len(text)}
	for n := rng.IntN(12); n > 0; n-- {
		cuts = append(cuts, rng.IntN(len(text)+1))
	}
	slices.Sort(cuts)
	out := make([]string, 0, len(cuts))
	for i := 1; i < len(cuts); i++ {
		out = append(out, text[cuts[i-1]:cuts[i]])
	}
	return out
}

func TestStreamReleasesAsItGoes(t *testing.T) {
	g := streamGuard(t)
	text := strings.Repeat("The quick brown fox jumps over the bad dog. ", 20)
	st := g.NewStream()
	var got strings.Builder
	before := 0
	for i := 0; i < len(text); i += 7 {
		r, v := st.Write(text[i:min(i+7, len(text))])
		require.Nil(t, v)
		got.WriteString(r)
		before = got.Len()
	}
	rest, v := st.Close()
	got.WriteString(rest)
	assert.Equal(t, g.CheckOutput(text).Text, got.String())
	assert.NotContains(t, got.String(), "bad")
	// All but the hold-back was released before Close.
	assert.GreaterOrEqual(t, before, len(text)-g.HoldBack()-len("bad"))
	assert.Len(t, v.Hits, 20)
}

func TestStreamBlockStopsRelease(t *testing.T) {
	g := streamGuard(t)
	st := g.NewStream()
	var got strings.Builder
	var stop *Verdict
	deltas := []string{"Everything is fine here, nothing to see, the weather is nice and ", "then a bo", "mb goes off", " and more", " text after it"}
	for _, d := range deltas {
		r, v := st.Write(d)
		if stop != nil {
			assert.Empty(t, r)
			assert.Same(t, stop, v)
			continue
		}
		got.WriteString(r)
		if v != nil {
			stop = v
		}
	}
	require.NotNil(t, stop)
	assert.True(t, stop.Blocked)
	assert.Equal(t, "SAFE", stop.Text)
	assert.Equal(t, "word:bomb", stop.Reason)
	assert.NotEmpty(t, got.String(), "the clean beginning was released")
	assert.NotContains(t, got.String(), "bo")
	rest, final := st.Close()
	assert.Empty(t, rest)
	assert.Equal(t, g.CheckOutput(strings.Join(deltas, "")), final)
	// Close and Write after Close change nothing.
	r, again := st.Close()
	assert.Empty(t, r)
	assert.Equal(t, final, again)
	r, v := st.Write("more")
	assert.Empty(t, r)
	assert.Same(t, stop, v)
}

func TestStreamHighRiskStops(t *testing.T) {
	g := compile(t, Config{SafeText: "SAFE"})
	st := g.NewStream()
	r1, v1 := st.Write("Some people say they want to ki")
	r2, v2 := st.Write("ll myself, and that is serious. More words follow here.")
	assert.Nil(t, v1)
	require.NotNil(t, v2)
	assert.True(t, v2.Transfer)
	assert.Equal(t, "SAFE", v2.Text)
	assert.Empty(t, r2)
	assert.NotContains(t, r1, "kill")
}

func TestStreamAppendsNoticesAtClose(t *testing.T) {
	g := streamGuard(t)
	st := g.NewStream()
	r1, _ := st.Write("You can get a refund any time you like, just ask us at the desk. ")
	r2, _ := st.Write("Thanks!")
	rest, v := st.Close()
	assert.Equal(t, "You can get a refund any time you like, just ask us at the desk. Thanks!\n\nRefunds take 5 days.", r1+r2+rest)
	assert.Equal(t, v.Text, r1+r2+rest)
	assert.NotContains(t, r1+r2, "Refunds take")
}

func TestStreamEmpty(t *testing.T) {
	g := streamGuard(t)
	st := g.NewStream()
	r, v := st.Write("")
	assert.Empty(t, r)
	assert.Nil(t, v)
	rest, final := st.Close()
	assert.Empty(t, rest)
	assert.Equal(t, Verdict{}, final)
}

// FuzzStream checks the stream against the whole-text check on any text
// and split; `go test` runs the seeds, `go test -fuzz FuzzStream`
// explores.
func FuzzStream(f *testing.F) {
	for _, s := range streamTexts {
		f.Add(s, uint64(3))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		g := streamGuard(t)
		checkStream(t, g, text, randomSplit(rand.New(rand.NewPCG(seed, seed)), text))
	})
}
