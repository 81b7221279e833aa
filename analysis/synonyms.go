package analysis

import (
	_ "embed"
	"strings"
)

// synonymsFile is synonyms.txt: WordNet's synonym sets of common English
// words as terms, written by internal/synonymgen (make synonyms).
//
//go:embed synonyms.txt
var synonymsFile string

// lexiconFile is lexicon.txt: the customer-service words of English and
// Chinese that mean the same, written for this project.
//
//go:embed lexicon.txt
var lexiconFile string

// Synonyms knows which terms mean the same: "guarantee" and "warranty",
// "couch" and "sofa". Only synonyms, never merely related words
// ("Switzerland" is no synonym of "Germany"), so a question about
// something the knowledge does not mention still finds nothing. It is
// immutable once made and safe for concurrent use.
type Synonyms struct {
	of map[string][]string
}

// NewSynonyms loads the built-in synonym sets (WordNet's, about 17,000,
// and the customer-service lexicon's; a few milliseconds).
// Make one per process and share it.
func NewSynonyms() *Synonyms {
	s := &Synonyms{of: map[string][]string{}}
	for _, line := range strings.Split(synonymsFile, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s.add(strings.Fields(line))
	}
	for _, line := range strings.Split(lexiconFile, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var set []string
		for _, w := range strings.Fields(line) {
			if t := lexiconTerm(w); t != "" && !contains(set, t) {
				set = append(set, t)
			}
		}
		s.add(set)
	}
	return s
}

// add makes the terms of set synonyms of each other.
func (s *Synonyms) add(set []string) {
	for _, t := range set {
		for _, u := range set {
			if u != t && !contains(s.of[t], u) {
				s.of[t] = append(s.of[t], u)
			}
		}
	}
}

// lexiconTerm is the term a word of the lexicon stands for: its one term
// (a stemmed English word), or a Chinese word of two characters as the
// pair it is among a text's terms; "" for anything else.
func lexiconTerm(w string) string {
	if rs := []rune(Fold(w)); len(rs) == 2 && IsCJK(rs[0]) && IsCJK(rs[1]) {
		return string(rs)
	}
	if ts := Terms(w); len(ts) == 1 {
		return ts[0]
	}
	return ""
}

// Of returns the synonyms of a term (never the term itself); nil when it
// has none or s is nil.
func (s *Synonyms) Of(term string) []string {
	if s == nil {
		return nil
	}
	return s.of[term]
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
