package safere

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/cputime"
)

// worstFamilies are the patterns that cost the most per instruction they
// keep alive, each grown by n until Compile refuses it: a run of optional
// any-characters, of case-folded short classes, of long Unicode classes,
// of capturing groups, and of case-folded letters. Each comes with the
// 4,000-character input that keeps every one of its instructions alive
// and never lets it match (no digit, which all of them end with).
var worstFamilies = []struct {
	name     string
	pattern  func(n int) string
	input    string
	submatch bool
}{
	{"any", func(n int) string { return strings.Repeat(`.?`, n) + `\d` }, strings.Repeat("退款", MaxInputRunes/2), false},
	{"folded_class", func(n int) string { return `(?i)` + strings.Repeat(`[a-z_]?`, n) + `\d` }, strings.Repeat("abcdefghij", MaxInputRunes/10), false},
	{"unicode_class", func(n int) string { return strings.Repeat(`\pL?`, n) + `\d` }, strings.Repeat("退a", MaxInputRunes/2), false},
	{"groups", func(n int) string { return strings.Repeat(`(.?)`, n) + `\d` }, strings.Repeat("退款", MaxInputRunes/2), true},
	{"folded_letter", func(n int) string { return `(?i)` + strings.Repeat(`k?`, n) + `\d` }, strings.Repeat("kK", MaxInputRunes/2), false},
	{"word_boundaries", func(n int) string { return strings.Repeat(`\b.?`, n) + `\d` }, strings.Repeat("ab ", MaxInputRunes/4) + strings.Repeat("a b ", MaxInputRunes/16), false},
}

// largestAccepted returns the longest pattern of the family Compile
// accepts.
func largestAccepted(tb testing.TB, family func(int) string) *Regexp {
	var last *Regexp
	for n := 1; ; n++ {
		re, err := Compile(family(n))
		if err != nil {
			require.NotNil(tb, last, "the family's first pattern is accepted")
			return last
		}
		last = re
	}
}

// BenchmarkWorstAcceptedPattern runs each family's largest accepted
// pattern over its 4,000-character input: the most one match can cost.
func BenchmarkWorstAcceptedPattern(b *testing.B) {
	for _, f := range worstFamilies {
		re := largestAccepted(b, f.pattern)
		b.Run(f.name, func(b *testing.B) {
			require.Equal(b, MaxInputRunes, len([]rune(f.input)))
			b.ReportMetric(float64(re.Footprint().StepCost), "cost")
			b.ReportMetric(float64(re.Insts()), "insts")
			cpu, n := cputime.Process(), 0
			for b.Loop() {
				if f.submatch {
					re.FindStringSubmatch(f.input)
				} else {
					re.MatchString(f.input)
				}
				n++
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(n)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkRefusedBomb is what the pattern costs to refuse.
func BenchmarkRefusedBomb(b *testing.B) {
	for b.Loop() {
		_, _ = Compile(bomb)
	}
}

// BenchmarkCompile is the check and compilation of a typical pattern, paid
// once per pattern when a tenant's rules are loaded.
func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		_, _ = Compile(`(?i)订单号?\s*[:：]?\s*(\d{8,20})`)
	}
}

// BenchmarkMeasureExploding is the longest check of an accepted pattern:
// one whose sets of instructions are too many to follow (2^16), so the
// search gives up after maxTransitions steps for the looser bound. Paid on
// every write of the tenant's patterns of that kind, and once per load.
func BenchmarkMeasureExploding(b *testing.B) {
	for b.Loop() {
		if _, err := Measure(`a[ab]{15}`); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWorstFamiliesStopAtTheBound(t *testing.T) {
	for _, f := range worstFamilies {
		re := largestAccepted(t, f.pattern)
		require.LessOrEqual(t, re.Footprint().StepCost, MaxStepCost, f.name)
		require.Greater(t, re.Footprint().StepCost, MaxStepCost*3/4, "%s: the family grows in small steps, so its largest is near the bound", f.name)
		require.False(t, re.MatchString(f.input), "%s: the input never matches, so the whole of it is read", f.name)
	}
}
