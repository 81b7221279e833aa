package chunk

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/analysis"
)

// How real FAQs write a question and its answer: "Q:", "Q7:", "问：",
// "问题 3：" before the question, "A:", "A7:", "答：" before the answer.
var (
	questionLabel = regexp.MustCompile(`^\s*(?:(?i:q|question)\s*\d{0,3}|问题?\s*\d{0,3})\s*[:：.、]\s*`)
	answerLabel   = regexp.MustCompile(`^\s*(?:(?i:a|answer)\s*\d{0,3}|答案?\s*\d{0,3}|回答\s*\d{0,3})\s*[:：.、]\s*`)
	// answerLabelInside is an answer label after a question on the same
	// line ("Q: Can I cancel? A: Yes, …").
	answerLabelInside = regexp.MustCompile(`[?？]\s*(?:(?i:a|answer)\s*\d{0,3}|答案?\s*\d{0,3}|回答)\s*[:：]\s*`)
	// listMarker starts a list item or a numbered line: "- ", "* ", "• ",
	// "1. ", "2) ", "3.1. ", "(4) ", "一、".
	listMarker = regexp.MustCompile(`^\s*(?:[-*•·–]\s+|\(?\d{1,3}(?:\.\d{1,3}){0,3}[.)]\s+|\(?\d{1,3}\)\s*|[一二三四五六七八九十]{1,3}[、.．]\s*)`)
	// sectionNumber is a heading's or a question's number: "2.1. ",
	// "14.3. ", "3) ".
	sectionNumber = regexp.MustCompile(`^\s*\(?\d{1,3}(?:\.\d{1,3}){0,3}[.)]?\s+|^\s*[一二三四五六七八九十]{1,3}[、.．]\s*|^\s*第\s*[0-9一二三四五六七八九十]+\s*[章节部分]\s*`)
)

// longNumber is a run of three digits or more: a phone number, a price,
// a code — facts, not a heading's words.
var longNumber = regexp.MustCompile(`\d{3,}`)

// isQuestionText reports whether text asks: it ends in "?" or "？"
// (a "?!" or closing quote after it too), or carries a question label.
func isQuestionText(text string) bool {
	t := strings.TrimSpace(text)
	if questionLabel.MatchString(t) {
		return true
	}
	t = strings.TrimRight(t, "!！ \t\"'”’」』）)*_")
	return strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？")
}

// questionKey is a question as a unit's key: without its label, number
// or Markdown emphasis ("**4. How do I reset my password?**" → "How do I
// reset my password?").
func questionKey(text string) string {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(text), "*_"))
	t = questionLabel.ReplaceAllString(t, "")
	t = sectionNumber.ReplaceAllString(t, "")
	return oneLine(t)
}

// splitInlineAnswer cuts a line holding a question and its answer ("Q: Can
// I cancel? A: Yes, until it ships." or "How do I pay? By card.") into the
// two; ok is false when text is not such a line.
func splitInlineAnswer(text string) (question, answer string, ok bool) {
	if loc := answerLabelInside.FindStringIndex(text); loc != nil {
		q := strings.TrimSpace(text[:loc[0]+len("?")])
		if strings.HasSuffix(text[loc[0]:loc[0]+3], "？") {
			q = strings.TrimSpace(text[:loc[0]+len("？")])
		}
		a := strings.TrimSpace(text[loc[1]:])
		return q, a, a != ""
	}
	if !questionLabel.MatchString(text) {
		return "", "", false
	}
	sentences := analysis.Sentences(text)
	if len(sentences) < 2 || !isQuestionText(sentences[0]) {
		return "", "", false
	}
	return sentences[0], strings.TrimSpace(strings.Join(sentences[1:], " ")), true
}

// headingLevelOf is the level a numbered heading's number gives ("2." 1,
// "2.1." 2, "3.1.1." 3), or 0 when it has none.
func headingLevelOf(text string) int {
	m := sectionNumber.FindString(text)
	if m == "" {
		return 0
	}
	digits := strings.Trim(strings.TrimSpace(m), "().")
	if digits == "" || !unicode.IsDigit(rune(digits[0])) {
		return 1
	}
	return strings.Count(digits, ".") + 1
}

// maxPlainHeadingWords and maxPlainHeadingRunes bound a plain-text or PDF
// line that can be a heading: a title is short.
const (
	maxPlainHeadingWords = 9
	maxPlainHeadingRunes = 20
)

// looksLikeHeading reports whether a line standing on its own could be a
// heading: short, ending in no punctuation, starting with a capital, a
// number or a CJK character, and no command or key–value line
// ("apt-get source foo", "Phone: 030 1234").
func looksLikeHeading(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || endsSentence(t) || strings.HasSuffix(t, ",") || strings.HasSuffix(t, "，") || strings.HasSuffix(t, "、") ||
		strings.HasSuffix(t, ";") || strings.HasSuffix(t, "；") {
		return false
	}
	body := sectionNumber.ReplaceAllString(t, "")
	if body == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(body)
	cjk := analysis.IsCJK(first)
	switch {
	case cjk && (utf8.RuneCountInString(body) > maxPlainHeadingRunes || strings.ContainsAny(body, "，；")):
		return false // a line with a comma is a sentence's
	case !cjk && len(strings.Fields(body)) > maxPlainHeadingWords:
		return false
	case !cjk && !unicode.IsUpper(first) && !unicode.IsDigit(first):
		return false
	case longNumber.MatchString(body):
		return false // "Phone 030 1234"
	case strings.ContainsAny(body, "$=<>{}|\\@") || strings.Contains(body, "://") || strings.Contains(body, "：") ||
		strings.Contains(body, ": "):
		return false
	}
	return true
}
