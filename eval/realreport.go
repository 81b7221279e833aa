package eval

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Sample keeps n questions of ds, chosen by a hash of dataset and question
// (the same ones every run): one per dataset first, so every document is
// still uploaded, then the rest by hash order. Datasets keep their
// questions' order; n ≤ 0 keeps all.
func Sample(ds []Dataset, n int) []Dataset {
	if n <= 0 {
		return ds
	}
	type pick struct {
		d, q int
		h    uint64
	}
	var all []pick
	for i, d := range ds {
		for j, q := range d.Questions {
			h := fnv.New64a()
			h.Write([]byte(d.Name + "\x00" + q.Q))
			all = append(all, pick{i, j, h.Sum64()})
		}
	}
	if len(all) <= n {
		return ds
	}
	sort.Slice(all, func(a, b int) bool { return all[a].h < all[b].h })
	keep := map[[2]int]bool{}
	first := map[int]bool{}
	for _, p := range all {
		if !first[p.d] {
			first[p.d] = true
			keep[[2]int{p.d, p.q}] = true
		}
	}
	for _, p := range all {
		if len(keep) >= n {
			break
		}
		keep[[2]int{p.d, p.q}] = true
	}
	out := make([]Dataset, 0, len(ds))
	for i, d := range ds {
		var qs []Question
		for j, q := range d.Questions {
			if keep[[2]int{i, j}] {
				qs = append(qs, q)
			}
		}
		if len(qs) > 0 {
			d.Questions = qs
			out = append(out, d)
		}
	}
	return out
}

// Answered: the reply gave an answer instead of handing off.
func (o Outcome) Answered() bool { return !o.Transfer }

// WrongAnswer: an answer given that is not right, to a covered question
// (it lacks what answers it) or to an uncovered one (it should have been
// handed off). A wrong answer is worse than a hand-off.
func (o Outcome) WrongAnswer() bool { return o.Answered() && !o.Right() }

// realGroup is the row a question goes to in the real set's tables.
func realGroup(q Question) string {
	switch q.Kind {
	case KindNearMiss:
		return GroupNearMiss
	case KindUncovered:
		return GroupUncovered
	}
	return GroupCovered
}

// RealRow is a row of the real set's tables.
type RealRow struct {
	Key, Channel, Group string
	// N questions; Right answered right; Handoff handed off; Wrong
	// answered wrong (a quote that does not answer, or any answer to an
	// uncovered question).
	N, Right, Handoff, Wrong int
}

// RealRows sums outcomes by the key by returns (a layout, an answer kind,
// a language…), channel and group (covered, uncovered, near miss).
func RealRows(outs []Outcome, by func(Outcome) string) []RealRow {
	rows := map[[3]string]*RealRow{}
	for _, o := range outs {
		k := [3]string{by(o), o.Channel, realGroup(o.Question)}
		r, ok := rows[k]
		if !ok {
			r = &RealRow{Key: k[0], Channel: k[1], Group: k[2]}
			rows[k] = r
		}
		r.N++
		switch {
		case o.Transfer:
			r.Handoff++
		case o.Right():
			r.Right++
		default:
			r.Wrong++
		}
	}
	out := make([]RealRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	order := map[string]int{GroupCovered: 0, GroupUncovered: 1, GroupNearMiss: 2}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Channel != b.Channel {
			return a.Channel < b.Channel
		}
		return order[a.Group] < order[b.Group]
	})
	return out
}

// RealTable renders rows; for uncovered and near-miss rows a hand-off is
// the right outcome, so "answered right" stays empty there.
func RealTable(title string, rows []RealRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | channel | questions | n | answered right | handed off | answered wrong |\n|---|---|---|--:|--:|--:|--:|\n", title)
	for _, r := range rows {
		right := pct(r.Right, r.N)
		if r.Group != GroupCovered {
			right = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %d |\n", r.Key, r.Channel, r.Group, r.N, right, pct(r.Handoff, r.N), r.Wrong)
	}
	return b.String()
}

// Bands are the confidence bands of the reliability table, [lo, hi).
var Bands = [][2]float64{{0, 0.5}, {0.5, 0.6}, {0.6, 0.7}, {0.7, 0.8}, {0.8, 0.9}, {0.9, 1.0001}}

// Reliability is the table of answers given by confidence band on one
// channel: how many, how many right, how many wrong, and the share right.
// Confidence that means what it says has ≥ 95% right at 0.8 and above.
func Reliability(outs []Outcome, channel string) string {
	n := make([]int, len(Bands))
	right := make([]int, len(Bands))
	var hiN, hiRight int
	for _, o := range outs {
		if o.Channel != channel || !o.Answered() {
			continue
		}
		for i, band := range Bands {
			if o.Confidence >= band[0] && o.Confidence < band[1] {
				n[i]++
				if o.Right() {
					right[i]++
				}
			}
		}
		if o.Confidence >= 0.8 {
			hiN++
			if o.Right() {
				hiRight++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| confidence (%s) | answers given | right | wrong | %% right |\n|---|--:|--:|--:|--:|\n", channel)
	for i, band := range Bands {
		share := "–"
		if n[i] > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(right[i])/float64(n[i]))
		}
		fmt.Fprintf(&b, "| %.1f–%.1f | %d | %d | %d | %s |\n", band[0], min(band[1], 1), n[i], right[i], n[i]-right[i], share)
	}
	fmt.Fprintf(&b, "| ≥ 0.8 | %d | %d | %d | %s |\n", hiN, hiRight, hiN-hiRight, pctOnly(hiRight, hiN))
	return b.String()
}

func pctOnly(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

// Defect kinds of a quoted answer.
const (
	DefectQuestionLine = "quote is a question line"
	DefectCut          = "quote cut at a line break (no sentence end, the source goes on)"
	DefectNoEnd        = "quote ends without sentence punctuation (source not checked)"
	DefectMixed        = "quote mixes a CJK and a Latin sentence"
)

// Defects lists what is wrong with the quotes of an answer given: a
// question line quoted, a sentence cut where the source's line broke, a
// CJK sentence spliced with a Latin one. source is the document's text
// when it is one (text, Markdown, HTML), else empty.
func Defects(o Outcome, source string) []string {
	if !o.Answered() {
		return nil
	}
	quotes := o.Quotes
	if len(quotes) == 0 && o.Answer != "" {
		quotes = []string{o.Answer}
	}
	seen := map[string]bool{}
	var out []string
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, q := range quotes {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		if isQuestionLine(q) {
			add(DefectQuestionLine)
		}
		if !endsSentence(q) {
			switch cut, checked := cutAtLineBreak(q, source); {
			case cut:
				add(DefectCut)
			case !checked:
				add(DefectNoEnd)
			}
		}
		if mixesScripts(q) {
			add(DefectMixed)
		}
	}
	return out
}

func isQuestionLine(q string) bool {
	for _, line := range strings.Split(q, "\n") {
		l := strings.TrimSpace(line)
		u := strings.ToUpper(l)
		if strings.HasSuffix(l, "?") || strings.HasSuffix(l, "？") || strings.HasPrefix(l, "问") ||
			strings.HasPrefix(u, "Q:") || strings.HasPrefix(u, "Q：") || (len(u) > 2 && u[0] == 'Q' && u[1] >= '0' && u[1] <= '9') {
			return true
		}
	}
	return false
}

func endsSentence(q string) bool {
	q = strings.TrimRight(q, " \t\"'”’)）」』】]")
	if q == "" {
		return true
	}
	r := []rune(q)
	return strings.ContainsRune(".!?。！？:：;；…", r[len(r)-1])
}

// cutAtLineBreak reports whether source holds q's end followed by a line
// break and more text of the same paragraph; checked is false when source
// is empty or does not hold q's end.
func cutAtLineBreak(q, source string) (cut, checked bool) {
	if source == "" {
		return false, false
	}
	r := []rune(q)
	end := string(r[max(0, len(r)-24):])
	i := strings.Index(source, end)
	if i < 0 {
		return false, false
	}
	rest := source[i+len(end):]
	rest = strings.TrimLeft(rest, " \t\r")
	if !strings.HasPrefix(rest, "\n") {
		return false, true
	}
	next := strings.TrimLeft(rest[1:], " \t\r")
	return next != "" && !strings.HasPrefix(next, "\n"), true
}

// mixesScripts: the quote has a sentence mostly in Han characters and
// another of Latin words without any.
func mixesScripts(q string) bool {
	var cjk, latin bool
	for _, s := range strings.FieldsFunc(q, func(r rune) bool { return strings.ContainsRune(".!?。！？\n", r) }) {
		var han, letters int
		for _, r := range s {
			switch {
			case unicode.Is(unicode.Han, r):
				han++
			case r < 128 && unicode.IsLetter(r):
				letters++
			}
		}
		switch {
		case han >= 4 && han*2 >= letters:
			cjk = true
		case han == 0 && letters >= 15:
			latin = true
		}
	}
	return cjk && latin
}

// DefectList is the check list of quote defects seen, by channel, each
// with a count and up to three examples.
func DefectList(outs []Outcome, source func(Dataset) string) string {
	type key struct{ defect, channel string }
	count := map[key]int{}
	examples := map[key][]string{}
	for _, o := range outs {
		for _, d := range Defects(o, source(o.Dataset)) {
			k := key{d, o.Channel}
			count[k]++
			if len(examples[k]) < 3 {
				examples[k] = append(examples[k], fmt.Sprintf("%s %q → %.90q", o.Dataset.Name, o.Question.Q, firstQuote(o)))
			}
		}
	}
	var b strings.Builder
	for _, d := range []string{DefectQuestionLine, DefectCut, DefectNoEnd, DefectMixed} {
		for _, ch := range []string{ChannelDialogue, ChannelRAGLab} {
			k := key{d, ch}
			mark := "[x]"
			if count[k] > 0 {
				mark = "[ ]"
			}
			fmt.Fprintf(&b, "- %s %s (%s): %d\n", mark, d, ch, count[k])
			for _, e := range examples[k] {
				fmt.Fprintf(&b, "    - %s\n", e)
			}
		}
	}
	return b.String()
}

func firstQuote(o Outcome) string {
	if len(o.Quotes) > 0 {
		return o.Quotes[0]
	}
	return o.Answer
}

// Questions counts a set's questions by language and label, for the
// report's header line.
func Questions(ds []Dataset) string {
	type c struct{ covered, para, uncovered, near int }
	by := map[string]*c{}
	var langs []string
	for _, d := range ds {
		x, ok := by[d.Language]
		if !ok {
			x = &c{}
			by[d.Language] = x
			langs = append(langs, d.Language)
		}
		for _, q := range d.Questions {
			switch q.Kind {
			case KindUncovered:
				x.uncovered++
			case KindNearMiss:
				x.near++
			default:
				x.covered++
				if q.Kind != KindDirect {
					x.para++
				}
			}
		}
	}
	slices.Sort(langs)
	var parts []string
	for _, l := range langs {
		x := by[l]
		parts = append(parts, fmt.Sprintf("%s: %d covered (%d paraphrased or disjoint), %d uncovered, %d near misses", l, x.covered, x.para, x.uncovered, x.near))
	}
	return strings.Join(parts, "; ")
}
