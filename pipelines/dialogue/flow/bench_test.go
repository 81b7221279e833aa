package flow

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/cputime"
	"github.com/cs-assistant/assistant/internal/safere"
)

// worstRegex is the costliest regex a step may have: optional
// any-characters, as many as the bounds allow, before a digit.
func worstRegex(tb testing.TB) string {
	last := ""
	for n := 1; ; n++ {
		re := strings.Repeat(`.?`, n) + `\d`
		if Validate(regexFlow("f", 1, re)) != nil {
			require.NotEmpty(tb, last)
			return last
		}
		last = re
	}
}

// BenchmarkSimulateWorstAccepted simulates the most a simulation may ask:
// MaxSimulateInputs answers of 4,000 characters, each checked by the
// costliest regex, which keeps all of itself alive over the whole answer
// and matches at its last character (so every answer is accepted and the
// flow goes on to the next step).
func BenchmarkSimulateWorstAccepted(b *testing.B) {
	re := worstRegex(b)
	c, err := Compile(regexFlow("f", MaxSteps, re))
	require.NoError(b, err)
	answer := strings.Repeat("退", safere.MaxInputRunes-1) + "7"
	inputs := make([]string, MaxSimulateInputs)
	for i := range inputs {
		inputs[i] = answer
	}
	cpu, n := cputime.Process(), 0
	for b.Loop() {
		replies, err := Simulate(c, inputs, nil, t0())
		if err != nil || len(replies) != len(inputs)+1 || replies[len(inputs)].Taken[0].Action != ActionAccepted {
			b.Fatalf("%v, %d replies", err, len(replies))
		}
		n++
	}
	perSim := float64(cputime.Process()-cpu) / float64(n) / 1e6
	b.ReportMetric(perSim, "cpu-ms/op")
	b.ReportMetric(perSim/float64(len(inputs)), "cpu-ms/answer")
}
