package analysis

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Stems is AppendTerms with a cache of the stems of the words it has cut:
// the Snowball stemmer takes most of the time of cutting prose into terms
// (it converts every word to runes and tries its suffixes one by one),
// and a text's words are mostly the few thousand its language uses most.
// It keeps the stems of the first max distinct words stemmed (a few more
// when goroutines race), and stems the others each time; the terms are
// AppendTerms' whatever it holds. It is safe for concurrent use; a nil
// *Stems stems every word each time.
type Stems struct {
	m   sync.Map // word → stem, both string
	n   atomic.Int64
	max int64
}

// StemCacheWords is the bound the indexes give their Stems: the stems of
// 65,536 words, about 10 MB, hold a language's common words many times
// over, and the rarer words past them are stemmed each time.
const StemCacheWords = 1 << 16

// NewStems returns an empty cache of the stems of up to max words.
func NewStems(max int) *Stems { return &Stems{max: int64(max)} }

// AppendTerms appends the terms of s to dst and returns it, as the
// package's AppendTerms does.
func (c *Stems) AppendTerms(dst []string, s string) []string {
	return appendTerms(dst, s, c)
}

// Terms returns the terms of s in order, as the package's Terms does.
func (c *Stems) Terms(s string) []string { return c.AppendTerms(nil, s) }

// Len returns the number of words whose stems c holds.
func (c *Stems) Len() int { return int(c.n.Load()) }

// word is the package's word, stems looked up in c (nil: none).
func (c *Stems) word(w string) string {
	if c == nil || isStopWord(w) || !isASCIILetters(w) || len(w) < 3 {
		return word(w)
	}
	if s, ok := c.m.Load(w); ok {
		return s.(string)
	}
	s := stem(w)
	if c.n.Load() < c.max {
		// Copies: the word is cut from the text (and its stem may be),
		// and the cache must keep none of the texts alive.
		if _, loaded := c.m.LoadOrStore(strings.Clone(w), strings.Clone(s)); !loaded {
			c.n.Add(1)
		}
	}
	return s
}
