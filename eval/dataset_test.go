package eval

import (
	"errors"
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real set's questions are honest: every expected string is in the
// document, and none is in one of its question lines (a quoted question
// must not count as right); the set is as large as the issue asks.
func TestRealSetIsHonest(t *testing.T) {
	real, err := Load("realdocs", "packages")
	require.NoError(t, err)
	layouts, err := LoadGlob("datasets/layout_*.json")
	require.NoError(t, err)
	pins, err := LoadPins("realdocs/packages.json")
	require.NoError(t, err)
	for _, d := range real {
		require.Contains(t, pins, d.Source.Package, d.Name)
	}
	f := &Fetcher{Dir: DocsDir(".."), Pins: pins, Log: t.Logf}
	fetched := true
	if err := f.Fill(t.Context(), real); err != nil {
		if !errors.Is(err, ErrNoAPT) || os.Getenv("CI") != "" {
			require.NoError(t, err)
		}
		t.Logf("not checking the real documents' texts: %v", err)
		fetched = false
	}
	all := append(append([]Dataset{}, real...), layouts...)
	var covered, para, uncovered, zh, n int
	for _, d := range all {
		for _, q := range d.Questions {
			n++
			if d.Language == "zh" {
				zh++
			}
			switch q.Kind {
			case KindUncovered, KindNearMiss:
				uncovered++
			default:
				covered++
				if q.Kind != KindDirect {
					para++
				}
			}
			assert.NotEmpty(t, q.AnswerKind, "%s: %q has no answer kind", d.Name, q.Q)
		}
		if d.Source != nil && !fetched {
			continue
		}
		text, questions, ok := documentText(d)
		if !ok {
			continue // a PDF as it ships: not read here
		}
		ft := fold(text)
		for _, q := range d.Questions {
			for _, e := range q.Expect {
				fe := fold(e)
				assert.True(t, strings.Contains(ft, fe), "%s: %q expects %q, not in the document", d.Name, q.Q, e)
				for _, line := range questions {
					assert.False(t, strings.Contains(fold(line), fe), "%s: %q expects %q, which a question line holds: %q", d.Name, q.Q, e, line)
				}
			}
		}
	}
	t.Logf("real set: %d datasets, %d questions (%d Chinese), %d covered (%d paraphrased or disjoint), %d uncovered or near misses", len(all), n, zh, covered, para, uncovered)
	assert.GreaterOrEqual(t, covered, 150, "covered questions")
	assert.GreaterOrEqual(t, 2*para, covered, "paraphrased or disjoint: at least half the covered")
	assert.GreaterOrEqual(t, uncovered, 80, "uncovered questions and near misses")
	assert.GreaterOrEqual(t, 10*zh, 4*n, "Chinese questions: at least 40%%")
}

var (
	htmlQuestion = regexp.MustCompile(`(?is)<(h[1-6]|dt|summary|th)\b[^>]*>(.*?)</(?:h[1-6]|dt|summary|th)>`)
	htmlTag      = regexp.MustCompile(`(?s)<[^>]*>`)
	htmlBlock    = regexp.MustCompile(`(?is)</?(p|div|h[1-6]|li|ul|ol|dl|dt|dd|tr|td|th|br|pre|table|title|summary|details|section|nav|footer|header|main|body|head|html)\b[^>]*>`)
	inlineAnswer = regexp.MustCompile(`\s(A\d*|答)[:：]`)
	htmlSkip     = regexp.MustCompile(`(?is)<(script|style)\b[^>]*>.*?</(?:script|style)>`)
)

// documentText is a dataset's document as text, with its question lines
// (lines ending in ?/？ or starting Q/问, headings, <dt>/<summary>, bold
// docx paragraphs, a sheet's first column); ok is false for a real PDF.
func documentText(d Dataset) (text string, questions []string, ok bool) {
	raw := d.Text
	if d.Source != nil {
		raw = string(d.data)
	}
	lineQuestions := func(s string) {
		for _, l := range strings.Split(s, "\n") {
			l = strings.TrimSpace(l)
			if loc := inlineAnswer.FindStringIndex(l); loc != nil {
				l = l[:loc[0]] // "Q: …? A: …" on one line: the question is the part before A
			}
			if isQuestionLine(l) || strings.HasPrefix(l, "#") {
				questions = append(questions, l)
			}
		}
	}
	switch d.Kind {
	case "text", "md":
		lineQuestions(raw)
		return raw, questions, true
	case "html":
		for _, m := range htmlQuestion.FindAllStringSubmatch(raw, -1) {
			questions = append(questions, html.UnescapeString(htmlTag.ReplaceAllString(m[2], " ")))
		}
		// JSON-LD: a FAQPage's question names.
		for _, m := range regexp.MustCompile(`"name"\s*:\s*"([^"]*)"`).FindAllStringSubmatch(raw, -1) {
			questions = append(questions, m[1])
		}
		text = html.UnescapeString(htmlTag.ReplaceAllString(htmlBlock.ReplaceAllString(htmlSkip.ReplaceAllString(raw, " "), "\n"), ""))
		lineQuestions(text)
		if strings.Contains(raw, "application/ld+json") {
			text += "\n" + raw // the answers of a JSON-LD FAQPage are in the script
		}
		return text, questions, true
	case "docx":
		var b strings.Builder
		for _, bl := range d.Blocks {
			b.WriteString(bl.Text + "\n")
			if bl.Heading > 0 || bl.Bold {
				questions = append(questions, bl.Text)
			}
		}
		lineQuestions(b.String())
		return b.String(), questions, true
	case "pdf":
		if d.Source != nil {
			return "", nil, false
		}
		var b strings.Builder
		for _, p := range d.Pages {
			for _, l := range p {
				b.WriteString(l + "\n")
			}
		}
		lineQuestions(b.String())
		return b.String(), questions, true
	case "xlsx":
		var b strings.Builder
		for _, s := range d.Sheets {
			for i, row := range s.Rows {
				b.WriteString(strings.Join(row, " ") + "\n")
				if i > 0 && len(row) > 0 {
					questions = append(questions, row[0])
				}
			}
		}
		return b.String(), questions, true
	}
	return "", nil, false
}
