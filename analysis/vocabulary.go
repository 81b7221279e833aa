package analysis

import (
	"strings"
	"sync"
)

// vocabulary is the set of terms of synonyms.txt (WordNet's common
// English words, stemmed), built once on first use and never changed
// after: a read-only table, like the embedded file it is made from.
var vocabulary = sync.OnceValue(func() map[string]struct{} {
	out := map[string]struct{}{}
	for _, line := range strings.Split(synonymsFile, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, t := range strings.Fields(line) {
			out[t] = struct{}{}
		}
	}
	return out
})

// KnownWord reports whether word is a common English word (its term is
// in WordNet's synonym sets): what tells a word split by a hyphen at a
// line's end ("distribu-" "tion") from a compound ("non-free").
func KnownWord(word string) bool {
	ts := Terms(word)
	if len(ts) != 1 {
		return false
	}
	_, ok := vocabulary()[ts[0]]
	return ok
}
