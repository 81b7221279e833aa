package analysis

import (
	"unicode/utf8"
)

// answerTypeWeight is how much a term that names the kind of answer
// wanted ("which countries", "what temperature", "how many years") counts
// against the others: the answer says "Germany", "30 degrees", "5 years",
// rarely the word itself, so missing it says little about whether a text
// answers the question.
const answerTypeWeight = 0.25

// QuestionTerm is a distinct term of a question with how much it counts
// (1, or answerTypeWeight for the kind of answer asked for).
type QuestionTerm struct {
	Term   string
	Weight float64
}

// QuestionTerms returns the distinct terms of a question, in order, each
// with its weight: an English word right after "which", "what" or "how
// many/much" names the answer's kind and counts less, and so do the verbs
// of the frame of a question that asks for a duration ("how long does …
// take"). The kind of answer itself is AskedKind's.
func QuestionTerms(s string) []QuestionTerm {
	var out []QuestionTerm
	seen := map[string]int{}
	add := func(t string, w float64) {
		if i, ok := seen[t]; ok {
			out[i].Weight = max(out[i].Weight, w)
			return
		}
		seen[t] = len(out)
		out = append(out, QuestionTerm{Term: t, Weight: w})
	}
	folded := Fold(s)
	prev := ""
	duration := AskedKind(s) == DurationAnswer
	for i := 0; i < len(folded); {
		r, size := utf8.DecodeRuneInString(folded[i:])
		if IsCJK(r) || !isWordStart(r) {
			var ts []string
			j := i + size
			if IsCJK(r) {
				j = appendCJK(&ts, folded, i)
			}
			for _, t := range ts {
				add(t, 1)
			}
			if !IsCJK(r) && r != '\'' && r != '’' && r != ' ' {
				prev = "" // punctuation ends "which …"
			}
			i = j
			continue
		}
		j := i
		for j < len(folded) {
			r, size := utf8.DecodeRuneInString(folded[j:])
			if IsCJK(r) || !isWordStart(r) {
				break
			}
			j += size
		}
		w := folded[i:j]
		if t := word(w); t != "" {
			weight := 1.0
			if asksForKind(prev) || duration && durationFrame(w) {
				weight = answerTypeWeight
			}
			add(t, weight)
		}
		prev = w
		i = j
	}
	return out
}

// durationFrame reports whether a word of a question that asks for a
// duration belongs to that frame ("how long does a refund take", "how long will
// the battery last"): the answer says "3 working days", rarely "take"
// ("long" is a stop word), so a text that holds those words but not the
// question's topic ("Delivery takes 3 to 5 working days") must not
// outrank one that holds the topic ("Refunds reach you within 3 working
// days").
func durationFrame(w string) bool {
	switch w {
	case "take", "takes", "taking", "took", "last", "lasts":
		return true
	}
	return false
}

// asksForKind reports whether the word before names the kind of answer
// wanted with the word after it.
func asksForKind(prev string) bool {
	switch prev {
	case "which", "what", "many", "much":
		return true
	}
	return false
}
