package decompose

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// The fallback's patterns for dates and numbers.
var (
	// isoDate: 2026-11-22, 2026/11/22, 2026.11.22.
	isoDate = regexp.MustCompile(`(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})`)
	// cjkDate: 2026年11月22日 (or 号).
	cjkDate = regexp.MustCompile(`(\d{4})年(\d{1,2})月(\d{1,2})[日号]?`)
	number  = regexp.MustCompile(`\d+(?:\.\d+)?`)
)

// fallback extracts what it can without a model, in an order that lets
// the more specific finds claim their text first: dates, values matching
// a slot's pattern, enum values named in the text, the targets' examples,
// then numbers. A date, a pattern's match or a number fills one target
// only, and no word within them is read again ("A10086" holds no number);
// a word may name the value of several targets ("router" is both the
// device slot and the product field). Booleans and strings with neither
// pattern nor examples are not filled.
func fallback(ts []target, text string) values {
	f := &finder{text: text}
	out := values{}
	pick := func(pass func(t target) (any, bool)) {
		for _, t := range ts {
			if _, done := out[t.Kind][t.Key]; done {
				continue
			}
			if v, ok := pass(t); ok {
				out.set(t.Kind, t.Key, v)
			}
		}
	}
	dates := f.dates()
	pick(func(t target) (any, bool) {
		if t.typ != domain.MetaDate || len(dates) == 0 {
			return nil, false
		}
		d := dates[0]
		dates = dates[1:]
		return d, true
	})
	pick(func(t target) (any, bool) {
		if t.pattern == "" || (t.typ != domain.MetaString && t.typ != domain.MetaStringArray) {
			return nil, false
		}
		return f.pattern(t.pattern, t.typ == domain.MetaStringArray)
	})
	pick(func(t target) (any, bool) {
		if t.typ != domain.MetaEnum {
			return nil, false
		}
		return f.first(t.enum)
	})
	pick(func(t target) (any, bool) {
		if len(t.Examples) == 0 || (t.typ != domain.MetaString && t.typ != domain.MetaStringArray) {
			return nil, false
		}
		if t.typ == domain.MetaStringArray {
			return f.all(t.Examples)
		}
		return f.first(t.Examples)
	})
	pick(func(t target) (any, bool) {
		if t.typ != domain.MetaNumber {
			return nil, false
		}
		return f.number()
	})
	return out
}

// finder searches a text, remembering which spans a target took.
type finder struct {
	text string
	used [][2]int
}

// free reports whether [s, e) overlaps no span taken so far.
func (f *finder) free(s, e int) bool {
	for _, u := range f.used {
		if s < u[1] && u[0] < e {
			return false
		}
	}
	return true
}

func (f *finder) take(s, e int) { f.used = append(f.used, [2]int{s, e}) }

// bounded reports whether [s, e) is a whole word: a letter or digit at an
// edge must not continue into the text beside it (CJK text, written
// without spaces, is never cut).
func (f *finder) bounded(s, e int) bool {
	if s > 0 {
		before, _ := utf8.DecodeLastRuneInString(f.text[:s])
		first, _ := utf8.DecodeRuneInString(f.text[s:])
		if wordRune(before) && wordRune(first) {
			return false
		}
	}
	if e < len(f.text) {
		after, _ := utf8.DecodeRuneInString(f.text[e:])
		last, _ := utf8.DecodeLastRuneInString(f.text[:e])
		if wordRune(after) && wordRune(last) {
			return false
		}
	}
	return true
}

// wordRune is a letter or digit of a script written with spaces.
func wordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') && !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// dates finds the text's dates, in order, as 2026-11-22.
func (f *finder) dates() []string {
	type found struct {
		at   int
		date string
	}
	var all []found
	for _, re := range []*regexp.Regexp{isoDate, cjkDate} {
		for _, m := range re.FindAllStringSubmatchIndex(f.text, -1) {
			y, _ := strconv.Atoi(f.text[m[2]:m[3]])
			mo, _ := strconv.Atoi(f.text[m[4]:m[5]])
			d, _ := strconv.Atoi(f.text[m[6]:m[7]])
			t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
			if t.Year() != y || int(t.Month()) != mo || t.Day() != d || !f.free(m[0], m[1]) {
				continue
			}
			f.take(m[0], m[1])
			all = append(all, found{m[0], t.Format(time.DateOnly)})
		}
	}
	slices.SortFunc(all, func(a, b found) int { return a.at - b.at })
	out := make([]string, len(all))
	for i, x := range all {
		out[i] = x.date
	}
	return out
}

// pattern finds the first free whole word (or, for a list, every one)
// that matches pattern whole; anchors in the pattern are dropped for the
// search and kept for the check. Both are compiled within the bounds of
// package safere (the slot service checked them on write): one over them,
// stored before they existed, finds nothing. The search reads the first
// safere.MaxInputRunes characters of the text.
func (f *finder) pattern(pattern string, list bool) (any, bool) {
	whole, err := safere.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return nil, false
	}
	search, err := safere.Compile(strings.TrimSuffix(strings.TrimPrefix(pattern, "^"), "$"))
	if err != nil {
		return nil, false
	}
	var items []string
	for _, m := range search.FindAllStringIndex(f.text, -1) {
		s := f.text[m[0]:m[1]]
		if m[1] == m[0] || !whole.MatchString(s) || !f.free(m[0], m[1]) || !f.bounded(m[0], m[1]) {
			continue
		}
		f.take(m[0], m[1])
		if !list {
			return s, true
		}
		items = append(items, s)
	}
	return strings.Join(items, ", "), len(items) > 0
}

// first finds the candidate named earliest in the text (whole words,
// case aside, outside what a date, pattern or number took) and returns it
// as written in candidates.
func (f *finder) first(candidates []string) (any, bool) {
	best, at := "", -1
	for _, c := range candidates {
		if s, _, ok := f.find(c); ok && (at < 0 || s < at) {
			best, at = c, s
		}
	}
	return best, at >= 0
}

// all finds every candidate named in the text, joined as a list.
func (f *finder) all(candidates []string) (any, bool) {
	var items []string
	for _, c := range candidates {
		if _, _, ok := f.find(c); ok {
			items = append(items, c)
		}
	}
	return strings.Join(items, ", "), len(items) > 0
}

// find locates candidate c as a free whole word, case aside; an English
// plural ending ("routers", "boxes") still names it.
func (f *finder) find(c string) (int, int, bool) {
	c = strings.TrimSpace(c)
	if c == "" {
		return 0, 0, false
	}
	re := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(c) + `(?:e?s\b)?`)
	for _, m := range re.FindAllStringIndex(f.text, -1) {
		if f.free(m[0], m[1]) && f.bounded(m[0], m[1]) {
			return m[0], m[1], true
		}
	}
	return 0, 0, false
}

// number takes the first free number that is not part of a code ("A10086"):
// no letter, digit, '.', '-' or '_' right before it.
func (f *finder) number() (any, bool) {
	for _, m := range number.FindAllStringIndex(f.text, -1) {
		if !f.free(m[0], m[1]) {
			continue
		}
		if m[0] > 0 {
			before, _ := utf8.DecodeLastRuneInString(f.text[:m[0]])
			if wordRune(before) || before == '.' || before == '-' {
				continue
			}
		}
		f.take(m[0], m[1])
		return f.text[m[0]:m[1]], true
	}
	return nil, false
}
