package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// The service's own parser and chunker make exactly one unit of each
// entry, its answer keyed by its question, so a file of n entries is n
// chunks: checked on the first products
// and on the longest names (a second generation).
func TestFAQEntriesAreOneChunkEach(t *testing.T) {
	tok, err := chunk.NewTokenizer()
	require.NoError(t, err)
	secondGen := len(faqTemplates) * len(brands) * len(kinds) * len(models)
	for _, r := range [][2]int{{0, 3000}, {secondGen - 500, secondGen + 2500}} {
		data := faqFile(r[0], r[1])
		doc, err := parse.Parse(t.Context(), parse.KindText, bytes.NewReader(data), parse.Limits{Timeout: time.Minute})
		require.NoError(t, err)
		units, _ := chunk.Units(tok, "doc_1", doc, chunk.DefaultOptions())
		require.Len(t, units, r[1]-r[0], "entries %v", r)
		for k, u := range units {
			_, _, line := faqEntry(r[0] + k)
			question, answer, ok := strings.Cut(line, "? ")
			require.True(t, ok, "entry %d is a question and its answer", r[0]+k)
			require.Equal(t, answer, u.Text, "entry %d: the answer is the unit's text", r[0]+k)
			require.Len(t, u.HeadingPath, 3, "product and topic headings and the question of entry %d", r[0]+k)
			require.Equal(t, question+"?", u.HeadingPath[2], "entry %d: the question is the unit's key", r[0]+k)
		}
	}
}

// The text is the same every time and differs between entries.
func TestFAQIsDeterministicAndVaried(t *testing.T) {
	assert.Equal(t, faqFile(100, 400), faqFile(100, 400))
	lines := map[string]bool{}
	for i := range 5000 {
		_, _, line := faqEntry(i)
		assert.False(t, lines[line], "entry %d repeats an earlier one: %q", i, line)
		lines[line] = true
		assert.NotContains(t, line, "{", "entry %d has a placeholder left", i)
	}
	assert.Contains(t, productName(len(brands)*len(kinds)*len(models)), "Mk2")
}

// Files cover the entries once, in order, none over the size asked.
func TestFAQPartsCoverEveryEntryOnce(t *testing.T) {
	assert.Equal(t, [][2]int{{0, 400}, {400, 800}, {800, 1000}}, faqParts(1000, 400))
	assert.Equal(t, [][2]int{{0, 10}}, faqParts(10, 400))
	assert.Empty(t, faqParts(0, 400))
}

// Customers ask covered questions from all over the knowledge base (each
// one an entry's question) and uncovered ones in between.
func TestCustomerMessagesMixCoveredAndUncovered(t *testing.T) {
	for _, n := range []int{500, 100_000} {
		msgs := customerMessages(n)
		covered := 0
		for _, m := range msgs {
			if !containsString(uncoveredQuestions, m) {
				covered++
			}
		}
		assert.Equal(t, coveredCount, covered, "n=%d", n)
		assert.Len(t, msgs, coveredCount+len(uncoveredQuestions), "n=%d", n)
		assert.Equal(t, msgs, customerMessages(n), "the same list every run")
	}
	last := customerMessages(100_000)[len(customerMessages(100_000))-1]
	assert.True(t, strings.HasSuffix(last, "?"), "a question: %q", last)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
