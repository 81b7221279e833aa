package llm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// seg is one settled piece of a generation, for comparing event streams.
type seg struct {
	thought bool
	text    string
}

var thinkCases = []struct {
	name string
	in   string
	want []seg
}{
	{"plain", "Returns are accepted within 30 days.", []seg{{false, "Returns are accepted within 30 days."}}},
	{"think first", "<think>\nThe user asks about returns.\n</think>\n\nWithin 30 days.",
		[]seg{{true, "The user asks about returns.\n"}, {false, "Within 30 days."}}},
	{"unclosed", "<think>Let me check the polic", []seg{{true, "Let me check the polic"}}},
	{"unclosed partial close", "<think>hmm</thi", []seg{{true, "hmm</thi"}}},
	{"only tag", "<think></think>", nil},
	{"two blocks", "a<think>b</think>c<think>d</think>e",
		[]seg{{false, "a"}, {true, "b"}, {false, "c"}, {true, "d"}, {false, "e"}}},
	{"stray close", "x</think>y", []seg{{false, "xy"}}},
	{"lookalikes", "a <b> <th ink> <thinking> </th> 1<2", []seg{{false, "a <b> <th ink> <thinking> </th> 1<2"}}},
	{"trailing lt", "ends with <", []seg{{false, "ends with <"}}},
	{"trailing partial open", "ends with <thin", []seg{{false, "ends with <thin"}}},
	{"chinese", "<think>用户问退货。</think>七天内可以无理由退货。",
		[]seg{{true, "用户问退货。"}, {false, "七天内可以无理由退货。"}}},
	{"nested open is text", "<think>a<think>b</think>c", []seg{{true, "a<think>b"}, {false, "c"}}},
}

// run feeds chunks and returns the merged segments plus the raw events.
func run(chunks []string) ([]seg, []domain.StreamEvent) {
	var s thinkSplitter
	var events []domain.StreamEvent
	for _, c := range chunks {
		events = append(events, s.write(c)...)
	}
	events = append(events, s.flush()...)
	var segs []seg
	for _, ev := range events {
		th := ev.Thought != ""
		text := ev.Delta + ev.Thought
		if n := len(segs); n > 0 && segs[n-1].thought == th {
			segs[n-1].text += text
			continue
		}
		segs = append(segs, seg{th, text})
	}
	return segs, events
}

func checkEvents(t *testing.T, events []domain.StreamEvent, msg string) {
	t.Helper()
	for _, ev := range events {
		require.True(t, (ev.Delta == "") != (ev.Thought == ""), "%s: event %+v carries both or neither", msg, ev)
	}
}

func TestThinkSplitterEverySplitPoint(t *testing.T) {
	for _, tc := range thinkCases {
		t.Run(tc.name, func(t *testing.T) {
			whole, events := run([]string{tc.in})
			assert.Equal(t, tc.want, whole)
			checkEvents(t, events, "whole")
			n := len(tc.in)
			// Every pair of cut points: three chunks, empty ones included.
			for i := 0; i <= n; i++ {
				for j := i; j <= n; j++ {
					got, events := run([]string{tc.in[:i], tc.in[i:j], tc.in[j:]})
					require.Equal(t, tc.want, got, "cut at %d and %d: %q | %q | %q", i, j, tc.in[:i], tc.in[i:j], tc.in[j:])
					checkEvents(t, events, "cut")
				}
			}
			// And one byte at a time.
			var bytes []string
			for i := range n {
				bytes = append(bytes, tc.in[i:i+1])
			}
			got, _ := run(bytes)
			assert.Equal(t, tc.want, got, "byte by byte")
		})
	}
}

func TestThinkSplitterDoesNotHoldText(t *testing.T) {
	var s thinkSplitter
	assert.Empty(t, s.write("<th"), "could be a tag")
	assert.Equal(t, []domain.StreamEvent{{Thought: "I should"}}, s.write("ink>I should"))
	assert.Equal(t, []domain.StreamEvent{{Thought: " check"}}, s.write(" check</"), "only the possible tag is held")
	assert.Empty(t, s.write("think>\n\n"), "leading space of the answer is dropped")
	assert.Equal(t, []domain.StreamEvent{{Delta: "Yes, 30 days"}}, s.write("Yes, 30 days"))
	assert.Equal(t, []domain.StreamEvent{{Delta: "."}}, s.write("."))
	assert.Empty(t, s.flush())
}

func TestSplitThink(t *testing.T) {
	a, th := splitThink("", "<think>why</think>\nbecause")
	assert.Equal(t, "because", a)
	assert.Equal(t, "why", th)
	a, th = splitThink("\nfirst. ", "<think>then</think>so")
	assert.Equal(t, "so", a)
	assert.Equal(t, "first. then", th, "a reasoning field and tags both count")
	a, th = splitThink("", strings.Repeat("x", 10))
	assert.Equal(t, strings.Repeat("x", 10), a)
	assert.Empty(t, th)
}
