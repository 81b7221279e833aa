package chunk

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// role is what a paragraph is in its document's structure.
type role uint8

const (
	// roleProse is running text: cut into sentences.
	roleProse role = iota
	// roleHeading is a heading: the path of what follows, never a unit.
	roleHeading
	// roleQuestion is the question of a question–answer pair: the key of
	// the paragraphs after it, never quoted.
	roleQuestion
	// roleListItem is an item of a list: kept with its lead-in.
	roleListItem
	// roleCode is code or preformatted text: kept whole.
	roleCode
)

// para is one paragraph of a document as its kind's structure reader
// found it, with where it stands. One reader per kind (text, PDF,
// blocks) makes them; one unit builder (buildUnits) cuts them into
// units.
type para struct {
	text  string
	role  role
	level int // a heading's level, 1..9
	page  int
	// lineStart and lineEnd are a text file's 1-based lines.
	lineStart, lineEnd int
}

// textLine is one non-blank line of a text file.
type textLine struct {
	text string
	num  int
}

// textParas rebuilds the paragraphs of a plain-text (or Markdown) file
// from its lines: blank lines and Markdown headings break paragraphs;
// inside a run of lines, a line joins the one before it when that one
// ends no sentence and was wrapped (it ran to the text's width, or the
// line goes on in lower case) at the same indentation; list markers,
// question and answer labels start lines of their own. Hyphens at a
// line's end are undone where the joined word is a known one. Chinese
// lines join without a space.
func textParas(lines []textLine) []para {
	width := wrapWidth(lines)
	body := bodyIndent(lines, width)
	var out []para
	for start := 0; start < len(lines); {
		end := start + 1
		for end < len(lines) && lines[end].num == lines[end-1].num+1 {
			end++
		}
		out = append(out, textBlock(lines[start:end], width, body, out)...)
		start = end
	}
	return out
}

// wrapWidth is the width hard-wrapped lines of the text run to: the 90th
// percentile of its lines' display widths.
func wrapWidth(lines []textLine) int {
	if len(lines) == 0 {
		return 0
	}
	ws := make([]int, len(lines))
	for i, l := range lines {
		ws[i] = displayWidth(strings.TrimRight(l.text, " \t"))
	}
	slices.Sort(ws)
	// Text narrower than this is not hard-wrapped; its lines are as
	// the writer broke them.
	return max(ws[len(ws)*9/10], minWrapWidth)
}

// minWrapWidth is the narrowest width hard-wrapped text is taken to run
// to.
const minWrapWidth = 48

// bodyIndent is the indentation most of a file's long lines (its prose)
// have.
func bodyIndent(lines []textLine, width int) int {
	count := map[int]int{}
	best, bestN := 0, 0
	for _, l := range lines {
		raw := strings.ReplaceAll(l.text, "\u00a0", " ")
		if displayWidth(strings.TrimRight(raw, " \t"))*2 < width {
			continue
		}
		in := indentOf(raw)
		count[in]++
		if count[in] > bestN || count[in] == bestN && in < best {
			best, bestN = in, count[in]
		}
	}
	return best
}

// displayWidth counts a CJK character as two columns, as a terminal and a
// hard-wrapping editor do.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		if r == '\t' {
			n += 4
		} else if analysis.IsCJK(r) || unicode.Is(unicode.Han, r) || (r >= 0xFF00 && r <= 0xFFEF) || (r >= 0x3000 && r <= 0x303F) {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func indentOf(s string) int {
	return displayWidth(s[:len(s)-len(strings.TrimLeft(s, " \t"))])
}

// lineRun is a run of joined lines being built.
type lineRun struct {
	text               string
	lineStart, lineEnd int
	indent, cont       int // the first line's indentation; the continuation's
	marker             bool
}

// textBlock rebuilds the paragraphs of one run of non-blank lines. before
// is what came earlier in the file (a lead-in ending the paragraph before
// makes a short block its code or list); body is the indentation of the
// file's prose (a heading stands out to the left of indented prose).
func textBlock(lines []textLine, width, body int, before []para) []para {
	var items []lineRun
	for _, l := range lines {
		// No-break spaces indent lines too (text rendered from HTML); a
		// unit separator in the file would read as a join mark.
		raw := strings.TrimRight(strings.NewReplacer("\u00a0", " ", "\x1f", "").Replace(l.text), " \t")
		t := strings.TrimSpace(raw)
		if t == "" || isRule(t) {
			continue
		}
		in := indentOf(raw)
		if n := len(items); n > 0 && joins(items[n-1], raw, t, in, width) {
			items[n-1].text = joinLine(items[n-1].text, t)
			items[n-1].lineEnd = l.num
			continue
		}
		it := lineRun{text: t, lineStart: l.num, lineEnd: l.num, indent: in, cont: in}
		if m := listMarker.FindString(raw); m != "" {
			it.marker, it.cont = true, displayWidth(m)
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil
	}
	if isTableOfContents(items) {
		return nil
	}
	leadIn := len(before) > 0 && isLeadIn(before[len(before)-1])
	var out []para
	for k, it := range items {
		it.text = cleanJoins(it.text)
		p := para{text: it.text, lineStart: it.lineStart, lineEnd: it.lineEnd}
		if q, a, ok := splitInlineAnswer(it.text); ok {
			out = append(out, para{text: q, role: roleQuestion, lineStart: it.lineStart, lineEnd: it.lineStart},
				para{text: a, lineStart: it.lineStart, lineEnd: it.lineEnd})
			continue
		}
		// A short line between a sentence's end and a line that starts
		// another is a heading, as in a PDF ("Return policy").
		inner := k > 0 && k+1 < len(items) && it.lineStart == it.lineEnd && endsSentence(items[k-1].text) &&
			!isQuestionText(items[k-1].text) && startsSentence(items[k+1].text)
		switch m := mdHeading.FindStringSubmatch(it.text); {
		case m != nil:
			p.role, p.level, p.text = roleHeading, len(m[1]), m[2]
		case isQuestionText(it.text):
			p.role = roleQuestion
		case answerLabel.MatchString(it.text):
			p.text = strings.TrimSpace(answerLabel.ReplaceAllString(it.text, ""))
		case (len(items) == 1 || k == 0 && len(items) > 1 && !items[1].marker || inner) && !leadIn &&
			looksLikeHeading(it.text) && !it.marker && (body == 0 || it.indent < body):
			p.role, p.level = roleHeading, max(headingLevelOf(it.text), 1)
		case it.marker:
			p.role = roleListItem
			if !leadIn && looksLikeHeading(it.text) && headingLevelOf(it.text) > 0 && len(items) == 1 && (body == 0 || it.indent < body) {
				p.role, p.level = roleHeading, headingLevelOf(it.text)
			}
		case len(items) == 1 && leadIn:
			p.role = roleCode
		}
		out = append(out, p)
	}
	return out
}

// isRule reports whether a line is a horizontal rule or a setext
// underline: "-----", "=====", "*****".
func isRule(t string) bool {
	if utf8.RuneCountInString(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '=' && c != '*' && c != '_' && c != '~' {
		return false
	}
	return strings.Trim(t, string(c)+" ") == ""
}

// joins reports whether a line continues the item before it.
func joins(prev lineRun, raw, t string, indent, width int) bool {
	if listMarker.MatchString(raw) || questionLabel.MatchString(t) || answerLabel.MatchString(t) || mdHeading.MatchString(t) {
		return false
	}
	if endsWithScheme(prev.text) {
		return true // a link wrapped after "https:"
	}
	if endsSentence(prev.text) || isQuestionText(prev.text) {
		return false
	}
	if indent != prev.cont && indent != prev.indent && absInt(indent-prev.cont) > 1 {
		return false
	}
	last := prev.text
	if strings.HasSuffix(last, "-") || strings.HasSuffix(last, "/") {
		return true
	}
	first, _ := utf8.DecodeRuneInString(t)
	if unicode.IsLower(first) {
		return true
	}
	// A long Chinese line that stops on a character, not on punctuation,
	// goes on in the next Chinese line, even when it was wrapped narrower
	// than the rest of the text (a short one is a title).
	if lastRune, _ := utf8.DecodeLastRuneInString(last); unicode.Is(unicode.Han, lastRune) && unicode.Is(unicode.Han, first) &&
		2*displayWidth(lastLineOf(last)) >= width {
		return true
	}
	// The last line of prev, as it stood: did the next word fit on it? A
	// first line is its own indentation and text (its marker included);
	// a continuation line starts at the item's continuation indent.
	lastLine := prev.indent + displayWidth(last)
	if strings.IndexByte(last, '\x1f') >= 0 {
		lastLine = prev.cont + displayWidth(lastLineOf(last))
	}
	return width > 0 && (lastLine+1+displayWidth(firstWord(t)) > width || lastLine*100 >= width*85)
}

// lastLineOf is the last physical line of a joined item: its text after
// the last join mark (the whole item when it is one line).
func lastLineOf(s string) string {
	if i := strings.LastIndexByte(s, '\x1f'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// firstWord is the first word of a line (a CJK line's first character).
func firstWord(t string) string {
	r, size := utf8.DecodeRuneInString(t)
	if analysis.IsCJK(r) {
		return t[:size]
	}
	if i := strings.IndexAny(t, " \t"); i >= 0 {
		return t[:i]
	}
	return t
}

// joinLine joins a wrapped line to the text before it: without a space
// between CJK characters or after a slash, without the hyphen of a word
// split at the line's end ("distribu-" "tion"), with one space otherwise.
// A unit separator marks where the join was, for joins' width test; it
// is removed once the paragraph is complete.
func joinLine(prev, next string) string {
	switch {
	case strings.HasSuffix(prev, "-") && !strings.HasSuffix(prev, " -") && dehyphenates(prev, next):
		return prev[:len(prev)-1] + "\x1f" + next
	case strings.HasSuffix(prev, "/"), endsWithScheme(prev), analysis.IsCJKEdge(lastLineOf(prev), next):
		return prev + "\x1f" + next
	case strings.HasSuffix(prev, "-") && !strings.HasSuffix(prev, " -"):
		return prev + "\x1f" + next // a compound: "non-" "members"
	}
	return prev + " \x1f" + next
}

// startsSentence reports whether a line starts as a sentence does: with a
// capital letter, a digit or a CJK character.
func startsSentence(t string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(t))
	return unicode.IsUpper(r) || unicode.IsDigit(r) || analysis.IsCJK(r)
}

// dehyphenates reports whether the word split by a hyphen at a line's end
// is one word ("distribu-tion") rather than a compound ("non-free"): the
// joined word is a known English word and the part before the hyphen is
// not.
func dehyphenates(prev, next string) bool {
	head := prev[strings.LastIndexFunc(prev[:len(prev)-1], func(r rune) bool { return !unicode.IsLetter(r) })+1 : len(prev)-1]
	tail := firstWord(next)
	tail = strings.TrimRightFunc(tail, func(r rune) bool { return !unicode.IsLetter(r) })
	if head == "" || tail == "" {
		return false
	}
	return analysis.KnownWord(head+tail) && !analysis.KnownWord(head)
}

// isTableOfContents reports whether a run of lines is a table of
// contents: numbered lines, many of them questions that nothing answers
// here.
func isTableOfContents(items []lineRun) bool {
	if len(items) < 2 {
		return false
	}
	questions, numbered := 0, 0
	for _, it := range items {
		if it.marker {
			numbered++
		}
		if isQuestionText(it.text) {
			questions++
		}
	}
	// Nine in ten numbered: a question wrapped after its "?" leaves a
	// line of its own.
	return numbered*10 >= len(items)*9 && questions*4 >= len(items)
}

// isLeadIn reports whether a paragraph introduces what follows it: it
// ends in a colon, or in no punctuation at all ("… by running").
func isLeadIn(p para) bool {
	if p.role != roleProse {
		return false
	}
	t := strings.TrimSpace(p.text)
	if strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：") {
		return true
	}
	if endsSentence(t) || isQuestionText(t) {
		return false
	}
	// Chinese has no spaces to count words by: count characters.
	if r, _ := utf8.DecodeRuneInString(t); analysis.IsCJK(r) {
		return utf8.RuneCountInString(t) > 6
	}
	return len(strings.Fields(t)) > 3
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// cleanJoins removes join marks from a paragraph's text.
func cleanJoins(s string) string { return strings.ReplaceAll(s, "\x1f", "") }

// blockParas reads the paragraphs of a kind whose parser gives
// paragraphs (docx, HTML, OCR text): headings, questions, list items and
// preformatted blocks as the parser marked them.
func blockParas(blocks []parse.Block) []para {
	var out []para
	for _, b := range blocks {
		text := strings.TrimSpace(validUTF8(b.Text))
		if text == "" {
			continue
		}
		p := para{text: text, page: b.Page}
		switch {
		case b.Heading:
			p.role, p.level, p.text = roleHeading, max(b.Level, 1), oneLine(text)
		case b.Question:
			p.role, p.text = roleQuestion, oneLine(text)
		case b.Preformatted:
			p.role = roleCode
		case b.ListItem:
			p.role = roleListItem
		}
		if p.role == roleProse {
			if q, a, ok := splitInlineAnswer(text); ok {
				out = append(out, para{text: q, role: roleQuestion, page: b.Page}, para{text: a, page: b.Page})
				continue
			}
			if answerLabel.MatchString(text) {
				p.text = strings.TrimSpace(answerLabel.ReplaceAllString(text, ""))
			} else if isQuestionText(text) && len(analysis.Sentences(text)) == 1 {
				p.role = roleQuestion
			}
		}
		out = append(out, p)
	}
	return out
}

// pdfParas reads a PDF's paragraphs page by page: wrapped lines joined
// (unwrap), short title lines as headings, question lines as questions.
func pdfParas(blocks []parse.Block) []para {
	var out []para
	running := runningLines(blocks)
	for len(blocks) > 0 {
		page := blocks[0].Page
		n := 1
		for n < len(blocks) && blocks[n].Page == page {
			n++
		}
		text := running.strip(joinBlocks(blocks[:n]))
		if isContentsPage(text) {
			// A table of contents lists every question with its page:
			// it shares each question's words and answers none.
			blocks = blocks[n:]
			continue
		}
		for _, pp := range unwrap(text) {
			if pp.heading != "" {
				out = append(out, headingOrQuestion(pp.heading, page))
			}
			for _, line := range strings.Split(pp.text, "\n") {
				if line = strings.TrimSpace(line); line == "" {
					continue
				}
				p := para{text: line, page: page}
				if q, a, ok := splitInlineAnswer(line); ok {
					out = append(out, para{text: q, role: roleQuestion, page: page}, para{text: a, page: page})
					continue
				}
				switch {
				case answerLabel.MatchString(line):
					p.text = strings.TrimSpace(answerLabel.ReplaceAllString(line, ""))
				case isQuestionText(line) && len(analysis.Sentences(line)) == 1:
					p.role = roleQuestion
				case listMarker.MatchString(line):
					p.role = roleListItem
				}
				out = append(out, p)
			}
		}
		blocks = blocks[n:]
	}
	return out
}

// running is what repeats at the top and the bottom of a PDF's pages: the
// keys (runningKey) of running headers and of footers.
type running struct{ head, foot map[string]bool }

// runningLines finds a PDF's running headers and footers: a first line
// whose first two words (digits masked) start the first line of at least
// three pages and two in five of them ("Debian Reference 12 / 233",
// "CHAPTER 14. REDISTRIBUTING DEBIAN … 14.4. CAN I PUT…"), and a last
// line (digits masked) ending that many pages ("60"). Left in, a header
// reads as the heading of every unit of its page, or glues itself to the
// page's first question.
func runningLines(blocks []parse.Block) running {
	heads, feet := map[string]int{}, map[string]int{}
	pages := 0
	for len(blocks) > 0 {
		n := 1
		for n < len(blocks) && blocks[n].Page == blocks[0].Page {
			n++
		}
		if first, last, ok := edgeLines(joinBlocks(blocks[:n])); ok {
			heads[headKey(first)]++
			feet[maskDigits(last)]++
		}
		pages++
		blocks = blocks[n:]
	}
	r := running{head: map[string]bool{}, foot: map[string]bool{}}
	// Two in five: a chapter's title starts its first page only ("Chapter
	// 15" on 15 of 70 pages), a running header nearly every page.
	bar := max(3, pages*2/5)
	for k, c := range heads {
		r.head[k] = c >= bar
	}
	for k, c := range feet {
		r.foot[k] = c >= bar
	}
	return r
}

// strip removes a page's running header and footer lines.
func (r running) strip(text string) string {
	first, last, ok := edgeLines(text)
	if !ok {
		return text
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if r.head[headKey(first)] {
		lines = lines[1:]
	}
	if len(lines) > 0 && r.foot[maskDigits(last)] && strings.TrimSpace(lines[len(lines)-1]) == last {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// edgeLines returns a page's first and last lines (trimmed; the same line
// for a page of one); false for a page of fewer than two lines, which
// has no header to tell from its text.
func edgeLines(text string) (string, string, bool) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) < 2 {
		return "", "", false
	}
	return strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1]), true
}

// headKey is a first line's first two words, digits masked.
func headKey(line string) string {
	f := strings.Fields(maskDigits(line))
	return strings.Join(f[:min(2, len(f))], " ")
}

// digitRun is a run of digits, masked by maskDigits.
var digitRun = regexp.MustCompile(`[0-9]+`)

func maskDigits(s string) string { return digitRun.ReplaceAllString(s, "#") }

// tocLeader is a table of contents' dot leader before a page number
// ("What is Debian? . . . . . . . 1"), possibly with a stray mark
// between.
var tocLeader = regexp.MustCompile(`(?:\.\s?){5,}\D{0,3}\d+`)

// isContentsPage reports whether a page's text is a table of contents:
// at least three of its lines, and a third of them, end an entry with a
// dot leader and a page number.
func isContentsPage(text string) bool {
	lines, leaders := 0, 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines++
		if tocLeader.MatchString(l) {
			leaders++
		}
	}
	return leaders >= 3 && leaders*3 >= lines
}

func headingOrQuestion(text string, page int) para {
	if isQuestionText(text) {
		return para{text: text, role: roleQuestion, page: page}
	}
	return para{text: text, role: roleHeading, level: max(headingLevelOf(text), 1), page: page}
}

// endsWithScheme reports whether a line ends in a link's scheme
// ("(https:"), the rest of the link being on the next line.
func endsWithScheme(s string) bool {
	return strings.HasSuffix(s, "https:") || strings.HasSuffix(s, "http:") || strings.HasSuffix(s, "ftp:")
}
