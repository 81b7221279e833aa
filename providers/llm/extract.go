package llm

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// Sentence boundaries. CJK enders always end a sentence; ASCII ones only
// before space, the end, or CJK text, so that "3.5", "v1.2" and
// "example.com" stay whole. Closing quotes and brackets stay with the
// sentence they close.
const (
	cjkEnders   = "。！？"
	asciiEnders = ".!?"
	cjkClosers  = "”’」』）】"
	closers     = `"')]` + cjkClosers
)

// sentence is one sentence of the evidence and where it came from.
type sentence struct {
	text  string
	pos   int // order in the evidence: passage, then place in the passage
	terms map[string]struct{}
	score float64
}

// pickSentences returns up to limit evidence sentences that share the most
// terms with question, in evidence order. Terms are weighted by rarity
// among the evidence sentences, so a word every sentence has counts
// little. Sentences scoring under half the best one are left out: they
// are more likely noise than support.
func pickSentences(question string, evidence []string, limit int) []string {
	q := terms(question)
	if len(q) == 0 {
		return nil
	}
	var all []sentence
	seen := map[string]bool{}
	for _, passage := range evidence {
		for _, s := range splitSentences(passage) {
			if seen[s] {
				continue
			}
			seen[s] = true
			all = append(all, sentence{text: s, pos: len(all), terms: terms(s)})
		}
	}
	df := map[string]int{}
	for _, s := range all {
		for t := range s.terms {
			df[t]++
		}
	}
	n := float64(len(all))
	var cands []sentence
	for _, s := range all {
		for t := range q {
			if _, ok := s.terms[t]; ok {
				s.score += math.Log(1 + n/float64(df[t]))
			}
		}
		if s.score > 0 {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// Best first; equal scores keep evidence order, which is best first.
	slices.SortStableFunc(cands, func(a, b sentence) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.pos - b.pos
	})
	best := cands[0].score
	keep := cands[:0:0]
	for _, c := range cands {
		if len(keep) == limit || c.score < best/2 {
			break
		}
		keep = append(keep, c)
	}
	slices.SortFunc(keep, func(a, b sentence) int { return a.pos - b.pos })
	out := make([]string, len(keep))
	for i, s := range keep {
		out[i] = s.text
	}
	return out
}

// splitSentences cuts a passage into trimmed, non-empty sentences.
func splitSentences(passage string) []string {
	var out []string
	rs := []rune(passage)
	start := 0
	cut := func(end int) {
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\n' || r == '\r':
			cut(i)
		case strings.ContainsRune(cjkEnders, r):
			cut(absorb(rs, i+1))
			i = start - 1
		case strings.ContainsRune(asciiEnders, r):
			j := absorb(rs, i+1)
			if j < len(rs) && !unicode.IsSpace(rs[j]) && !isCJK(rs[j]) {
				continue
			}
			if r == '.' && isNumbering(rs[start:i]) {
				continue // "1. Open settings" is one sentence
			}
			cut(j)
			i = start - 1
		}
	}
	cut(len(rs))
	return out
}

// absorb moves past further enders and closing marks after an ender.
func absorb(rs []rune, j int) int {
	for j < len(rs) && strings.ContainsRune(cjkEnders+asciiEnders+closers, rs[j]) {
		j++
	}
	return j
}

// isNumbering reports whether rs is a list number like "12".
func isNumbering(rs []rune) bool {
	s := strings.TrimSpace(string(rs))
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// isCJK reports whether r is written without spaces between words, so
// that words are found as character bigrams.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// hanParticles break a run of Han characters, so that they do not make
// bigrams with the words around them.
const hanParticles = "的了吗呢吧啊呀么"

// isStopWord reports whether w says nothing about the topic of a question.
func isStopWord(w string) bool {
	switch w {
	case "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "to", "of", "in", "on", "at",
		"for", "and", "or", "but", "with", "by", "from", "as", "it", "its", "this", "that", "these", "those",
		"i", "you", "we", "they", "he", "she", "my", "your", "our", "their", "me", "us", "do", "does", "did",
		"how", "what", "when", "where", "which", "who", "whom", "why", "can", "could", "should", "would",
		"will", "shall", "may", "might", "must", "not", "no", "if", "then", "so", "than", "there", "here",
		"have", "has", "had", "please", "about", "into", "out", "any", "some", "all", "get", "got", "want",
		"need", "tell", "know", "let", "hi", "hello", "thank", "thanks":
		return true
	}
	return false
}

// isStopBigram reports whether a Han bigram is a question word or a
// pronoun rather than a topic.
func isStopBigram(b string) bool {
	switch b {
	case "什么", "怎么", "怎样", "如何", "可以", "能否", "是否", "请问", "我们", "你们", "他们",
		"我想", "一下", "哪里", "哪些", "为什", "时候", "这个", "那个":
		return true
	}
	return false
}

// terms returns the words of s (lower-cased, a plural or -ed/-ing ending
// removed, stop words dropped) and the bigrams of its CJK runs (a run of
// one character counts as itself).
func terms(s string) map[string]struct{} {
	out := map[string]struct{}{}
	var word, run []rune
	flushWord := func() {
		if len(word) > 0 {
			w := stem(string(word))
			if !isStopWord(w) && (len(word) > 1 || unicode.IsDigit(word[0])) {
				out[w] = struct{}{}
			}
			word = word[:0]
		}
	}
	flushRun := func() {
		if len(run) == 1 {
			out[string(run)] = struct{}{}
		}
		for i := 0; i+1 < len(run); i++ {
			b := string(run[i : i+2])
			if !isStopBigram(b) {
				out[b] = struct{}{}
			}
		}
		run = run[:0]
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case isCJK(r) && !strings.ContainsRune(hanParticles, r):
			flushWord()
			run = append(run, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushRun()
			word = append(word, r)
		default:
			flushWord()
			flushRun()
		}
	}
	flushWord()
	flushRun()
	return out
}

// stem removes the commonest English endings, so that "returns",
// "returned" and "returning" meet "return". It only has to be consistent,
// not right: both sides go through it.
func stem(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}
