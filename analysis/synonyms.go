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

// Synonyms knows which terms mean the same: "guarantee" and "warranty",
// "couch" and "sofa". Only synonyms, never merely related words
// ("Switzerland" is no synonym of "Germany"), so a question about
// something the knowledge does not mention still finds nothing. It is
// immutable once made and safe for concurrent use.
type Synonyms struct {
	of map[string][]string
}

// NewSynonyms loads the built-in synonym sets (about 17,000 sets; a few
// milliseconds). Make one per process and share it.
func NewSynonyms() *Synonyms {
	s := &Synonyms{of: map[string][]string{}}
	for _, line := range strings.Split(synonymsFile, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set := strings.Fields(line)
		for _, t := range set {
			for _, u := range set {
				if u != t && !contains(s.of[t], u) {
					s.of[t] = append(s.of[t], u)
				}
			}
		}
	}
	return s
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
