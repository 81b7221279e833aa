package intent

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/cputime"
	"github.com/cs-assistant/assistant/internal/safere"
)

// maxRuleSetBytes is the most memory a tenant's compiled rules may take,
// whatever rules the writes accepted (issue 24: 101 rules of the bomb
// pattern took the process from 181 MB to 1.26 GB).
const maxRuleSetBytes = 50 << 20

// worstMemoryPatterns are the patterns that take the most memory for what
// they count in the budget: the cheapest pattern (the most a tenant may
// have), small patterns anchored at both ends (which Go compiles twice,
// once for its one-pass matcher), wide classes so anchored, and a long
// literal (a large program that costs little to run).
var worstMemoryPatterns = []string{`a`, `^a$`, `^\d{3}$`, `^[a-z]{2,10}$`, `^\pL$`, `^[\pL\pN_]$`, hanRun(0, 160)}

// worstRuleSet is the largest rule set of pattern p that the writes
// accept: MaxPatterns patterns a rule on as many rules as the tenant may
// have, or as many patterns as its budget takes.
func worstRuleSet(tb testing.TB, p string) []domain.IntentRule {
	require.NoError(tb, Validate(rule("r", 0, ModeAny, nil, p)))
	n := min(domain.MaxIntentRulesPerTenant*MaxPatterns, fits(patternFootprint(p)))
	var rules []domain.IntentRule
	for i := 0; n > 0; i++ {
		k := min(n, MaxPatterns)
		rules = append(rules, rule(fmt.Sprintf("r%04d", i), int32(i%50), ModeAny, nil, repeat(p, k)...))
		n -= k
	}
	return rules
}

// repeat returns n copies of s, each its own string (as rules read from
// the store would be).
func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Clone(s)
	}
	return out
}

// heapOf returns the heap bytes that the value build returns keeps alive.
func heapOf(build func() any) (uint64, any) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc), v
}

func TestTheWorstAcceptedRuleSetStaysWithinItsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles 20,000 patterns")
	}
	for _, p := range worstMemoryPatterns {
		t.Run(p[:min(len(p), 24)], func(t *testing.T) {
			var patterns int
			bytes, m := heapOf(func() any {
				rules := worstRuleSet(t, p)
				for _, r := range rules {
					patterns += len(r.Patterns)
				}
				m, err := Compile(rules)
				require.NoError(t, err)
				return m
			})
			kept := 0
			for _, c := range m.(*Matcher).rules {
				for _, cp := range c.patterns {
					if cp.re != nil {
						kept++
					}
				}
			}
			require.Equal(t, patterns, kept, "every pattern is compiled")
			t.Logf("%d rules, %d patterns of %+v: %.1f MB", len(m.(*Matcher).rules), patterns, patternFootprint(p), float64(bytes)/(1<<20))
			assert.LessOrEqual(t, bytes, uint64(maxRuleSetBytes))
			runtime.KeepAlive(m)
		})
	}
}

// BenchmarkWorstAcceptedRuleSetHeap reports the heap each worst accepted
// rule set keeps compiled.
func BenchmarkWorstAcceptedRuleSetHeap(b *testing.B) {
	for _, p := range worstMemoryPatterns {
		b.Run(p[:min(len(p), 24)], func(b *testing.B) {
			var bytes uint64
			for b.Loop() {
				var m any
				bytes, m = heapOf(func() any {
					m, err := Compile(worstRuleSet(b, p))
					require.NoError(b, err)
					return m
				})
				runtime.KeepAlive(m)
			}
			b.ReportMetric(float64(bytes)/(1<<20), "heap-MB")
		})
	}
}

// worstCostPattern is the costliest pattern a rule may have: optional
// any-characters, as many as the bounds allow, before a digit that the
// benchmark's message never has.
func worstCostPattern(tb testing.TB) string {
	last := ""
	for n := 1; ; n++ {
		p := strings.Repeat(`.?`, n) + `\d`
		if Validate(rule("r", 0, ModeAny, nil, p)) != nil {
			require.NotEmpty(tb, last)
			return last
		}
		last = p
	}
}

// BenchmarkWorstAcceptedPattern runs the costliest pattern on a
// 4,000-character message that keeps all of it alive and never matches:
// the pattern alone, on the message's pattern form, and the whole intent
// stage (Best), which also normalises the message.
func BenchmarkWorstAcceptedPattern(b *testing.B) {
	p := worstCostPattern(b)
	msg := strings.Repeat("退款", safere.MaxInputRunes/2)
	cp, err := compilePattern(p)
	require.NoError(b, err)
	m, err := Compile([]domain.IntentRule{rule("r", 0, ModeAny, nil, p)})
	require.NoError(b, err)
	text := safere.Bounded(patternText(msg))
	for _, c := range []struct {
		name string
		run  func() bool
	}{
		{"pattern", func() bool { return cp.match(text) }},
		{"stage", func() bool { _, ok := m.Best(msg); return ok }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportMetric(float64(cp.re.Footprint().StepCost), "cost")
			cpu, n := cputime.Process(), 0
			for b.Loop() {
				if c.run() {
					b.Fatal("matched")
				}
				n++
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(n)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkWorstAcceptedRuleSetMessage is the worst accepted rule set of
// the costliest pattern (as many as the budget takes) on that message:
// what one message can cost a tenant's intent stage.
func BenchmarkWorstAcceptedRuleSetMessage(b *testing.B) {
	m, err := Compile(worstRuleSet(b, worstCostPattern(b)))
	require.NoError(b, err)
	msg := strings.Repeat("退款", safere.MaxInputRunes/2)
	cpu, n := cputime.Process(), 0
	for b.Loop() {
		if _, ok := m.Best(msg); ok {
			b.Fatal("matched")
		}
		n++
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(n)/1e6, "cpu-ms/op")
}
