package llm

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// sentence is one sentence of the evidence and where it came from.
type sentence struct {
	text  string
	unit  int // index of its evidence unit
	pos   int // order in the evidence: unit, then place in the unit
	terms map[string]struct{}
	score float64
	lang  string // analysis.Language of text
}

// quoted is what the extractive answerer quotes: sentences in evidence
// order, and the evidence units they come from.
type quoted struct {
	sentences []string
	units     []int
}

// referring starts a sentence that leans on the one before it ("It can be
// returned…", "此服务…"), which is then quoted too.
var referring = regexp.MustCompile(`^(?i:(it|its|this|that|these|those|they|them|their|such|he|she|both|the latter|the former)\b)|^(此|这|该|它|其|上述|以上)`)

// questionLine and answerLabel recognise a question–answer unit.
var (
	questionLine = regexp.MustCompile(`^\s*(?i:q|question|问|问题)\s*[:：.]|[?？]\s*$`)
	answerLabel  = regexp.MustCompile(`^\s*(?i:a|answer|答|回答)\s*[:：.]\s*`)
)

// pickSentences chooses what answers a question (its terms q, its
// language lang, the kind of answer it asks for) from the evidence units
// (most relevant first): the sentence sharing the most of the question's
// terms (its unit's headings, an FAQ answer's question among them, count
// as its own), weighted by rarity among the evidence sentences, a
// sentence holding the kind of answer asked for ahead of one that does
// not (ties go to the more relevant unit); for a question line of a
// question–answer pair, its answer; with the sentence before it when it
// starts by referring back; and the sentence after it when that one
// continues it (a lead-in's list, or a further term of the question).
// A question is never quoted, nor a sentence in another language than
// the question's when the evidence has sentences in its language.
// Nothing when no sentence shares a term with the question.
//
// With a meaning (nil for none) that rates the question, a sentence
// scores its share of the question's weighted terms plus its similarity
// in meaning (meaningWeight of its cosine), and a sentence sharing no
// term is a candidate when it means the question (minMeaning): the
// sentence that says what was asked in other words is not outscored by
// one that only repeats the question's words.
func pickSentences(q map[string]struct{}, evidence []domain.EvidenceUnit, question string, meaning domain.Meaning) quoted {
	if len(q) == 0 {
		return quoted{}
	}
	lang, kind := analysis.Language(question), analysis.AskedKind(question)
	var all []sentence
	for u, ev := range evidence {
		heading := analysis.TermSet(strings.Join(ev.HeadingPath, " "))
		for _, s := range analysis.Sentences(ev.Text) {
			// A question quoted as a cross-reference ("see Section 6.1,
			// “How many distributions are there?”") shares the question's
			// words and answers nothing: its words are not the sentence's.
			terms := analysis.TermSet(quotedQuestion.ReplaceAllString(s, " "))
			for t := range heading {
				terms[t] = struct{}{}
			}
			all = append(all, sentence{text: s, unit: u, pos: len(all), terms: terms})
		}
	}
	df := map[string]int{}
	sameLang := false
	for i := range all {
		for t := range all[i].terms {
			df[t]++
		}
		all[i].lang = analysis.Language(all[i].text)
		sameLang = sameLang || all[i].lang == lang
	}
	n := float64(len(all))
	// The question's terms in one order, so that equal scores are equal
	// to the last bit and ties go to the more relevant unit every time.
	qs := slices.Sorted(maps.Keys(q))
	sims := similarities(meaning, question, all, sameLang, lang)
	total := 0.0
	for _, t := range qs {
		if df[t] > 0 {
			total += math.Log(1 + n/float64(df[t]))
		}
	}
	var cands []sentence
	for i, s := range all {
		if sameLang && s.lang != lang {
			continue
		}
		for _, t := range qs {
			if _, ok := s.terms[t]; ok {
				s.score += math.Log(1 + n/float64(df[t]))
			}
		}
		if sims != nil && total > 0 {
			if s.score == 0 && sims[i] < minMeaning {
				continue
			}
			s.score = s.score/total + meaningWeight*float64(max(sims[i], 0))
		}
		if s.score > 0 && kind != analysis.AnyAnswer && kind.HeldBy(s.text) {
			s.score *= kindBonus
		}
		if s.score > 0 {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return quoted{}
	}
	slices.SortStableFunc(cands, func(a, b sentence) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.pos - b.pos
	})
	best := -1
	for i, c := range cands {
		if !isQuestion(c.text) {
			best = i
			break
		}
		if c.pos+1 < len(all) && all[c.pos+1].unit == c.unit && !isQuestion(all[c.pos+1].text) {
			// The question of a Q&A pair matched: its answer is what to
			// quote.
			ans := all[c.pos+1]
			ans.score = c.score
			cands[i] = ans
			best = i
			break
		}
	}
	if best < 0 {
		return quoted{}
	}
	first := cands[best]
	keep := []sentence{first}
	if next := first.pos + 1; next < len(all) && all[next].unit == first.unit && !isQuestion(all[next].text) &&
		continues(first, all[next], q) {
		keep = append(keep, all[next])
	}
	var out quoted
	for _, s := range keep {
		if prev := before(evidence[s.unit], s.text); prev != "" && referring.MatchString(s.text) && !isQuestion(prev) &&
			!slices.Contains(out.sentences, prev) {
			out.sentences = append(out.sentences, prev)
		}
		// An answer line that matched by itself is quoted without its
		// label, as when its question matched ("A: Yes, …" → "Yes, …").
		out.sentences = append(out.sentences, answerLabel.ReplaceAllString(s.text, ""))
		if !slices.Contains(out.units, s.unit) {
			out.units = append(out.units, s.unit)
		}
	}
	return out
}

// meaningWeight is how much a sentence's cosine with the question counts
// beside its share of the question's terms (which is at most 1), and
// minMeaning the cosine at which a sentence sharing no term is a
// candidate (use.CosineRelated). Measured on make eval's sets (see
// docs/answer-quality.md, "The sentence encoder"): 1 lets a sentence
// that only resembles the question outscore the one holding its words
// in technical manuals; 0.1–0.5 gain and lose about as many answers.
const (
	meaningWeight = 0.3
	minMeaning    = 0.45
)

// similarities rates each sentence against the question with meaning, in
// the order of all; nil when there is no meaning or it cannot rate the
// question. Sentences left out of the quote (another language) are not
// rated.
func similarities(meaning domain.Meaning, question string, all []sentence, sameLang bool, lang string) []float32 {
	if meaning == nil {
		return nil
	}
	var texts []string
	var at []int
	for i, s := range all {
		if !sameLang || s.lang == lang {
			texts = append(texts, s.text)
			at = append(at, i)
		}
	}
	got := meaning.Similar(question, texts)
	if got == nil {
		return nil
	}
	out := make([]float32, len(all))
	for j, i := range at {
		out[i] = got[j]
	}
	return out
}

// quotedQuestion is a question in quotation marks inside a sentence.
var quotedQuestion = regexp.MustCompile(`[“"「『][^”"」』]*[?？][”"」』]`)

// kindBonus raises a sentence that holds the kind of answer asked for
// (a place for "where", a time for "when", a number for "how much")
// above one that only shares the question's words.
const kindBonus = 1.5

// unfinished reports whether a sentence stops before its end: no full
// stop, question or exclamation mark, or closing quote after one ("要从命令行升级系统，请运行"
// before the command on its own line).
func unfinished(t string) bool {
	t = strings.TrimRight(t, `"')]”’」』）】`)
	r, _ := utf8.DecodeLastRuneInString(t)
	return !strings.ContainsRune(".。!！?？…;；", r)
}

// continues reports whether next, the sentence after first in its unit,
// goes on with it: first introduces it (ends in a colon), next refers
// back to it, or next adds a term of the question first lacks.
func continues(first, next sentence, q map[string]struct{}) bool {
	t := strings.TrimSpace(first.text)
	if strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：") || referring.MatchString(next.text) || unfinished(t) {
		return true
	}
	return addsTerm(q, first.terms, next.terms)
}

// isQuestion reports whether a sentence asks (a question line of an FAQ,
// a rhetorical question): never an answer.
func isQuestion(s string) bool {
	if questionLine.MatchString(s) && !answerLabel.MatchString(s) {
		return true
	}
	t := strings.TrimRight(strings.TrimSpace(s), "!！\"'”’」』）)")
	return strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？")
}

// addsTerm reports whether other holds a question term that best lacks.
func addsTerm(q, best, other map[string]struct{}) bool {
	for t := range q {
		_, inBest := best[t]
		_, inOther := other[t]
		if inOther && !inBest {
			return true
		}
	}
	return false
}

// before returns the sentence before s in its unit, or else in the unit's
// passage; "" when there is none.
func before(ev domain.EvidenceUnit, s string) string {
	for _, text := range []string{ev.Text, ev.Context} {
		sentences := analysis.Sentences(text)
		for i, x := range sentences {
			if x == s && i > 0 {
				return sentences[i-1]
			}
		}
	}
	return ""
}
