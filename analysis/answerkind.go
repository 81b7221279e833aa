package analysis

import "regexp"

// AnswerKind is the kind of answer a question asks for when its words say
// so: a duration ("How long does a refund take?", "多久"), a price ("How
// much does assembly cost?", "多少钱") or a weight ("How much does the
// chair weigh?", "多重"). Such an answer says "3 working days", "49 EUR"
// or "7 kg", rarely the question's words, so a text that holds the topic
// and an expression of the kind answers better than one that holds the
// topic alone: "How long is the warranty?" is answered by "a 2-year
// warranty", not by "Damage from water is not covered by the warranty".
type AnswerKind uint8

const (
	// AnyAnswer: the question's words name no kind.
	AnyAnswer AnswerKind = iota
	// DurationAnswer: "how long", "how soon", "how many days", "多久".
	// A length answers "how long" too ("How long is the cable?").
	DurationAnswer
	// PriceAnswer: "how much … cost", "what is the price", "多少钱".
	PriceAnswer
	// WeightAnswer: "how heavy", "how much … weigh", "多重".
	WeightAnswer
)

// Term is the term that stands for an answer of kind k among a text's
// terms (EvidenceTerms): "#duration", "#price", "#weight". No word cuts
// into a term with "#", so it is never a word's.
func (k AnswerKind) Term() string {
	switch k {
	case DurationAnswer:
		return "#duration"
	case PriceAnswer:
		return "#price"
	case WeightAnswer:
		return "#weight"
	}
	return ""
}

// The cues of the kinds in a folded question, and their expressions in a
// folded text.
var (
	askWeight   = regexp.MustCompile(`\bhow heavy\b|\bweigh(s|t)?\b|多重|重量|几斤|几公斤`)
	askPrice    = regexp.MustCompile(`\bhow much\b.*\b(cost|costs|charge|charges|pay|fee|fees)\b|\bwhat does\b.*\bcost\b|\bprice\b|多少钱|价格|费用|收费|多少费`)
	askDuration = regexp.MustCompile(`\bhow (long|soon)\b|\bhow many (minutes|hours|days|nights|weeks|months|years|working days|business days)\b|多久|多长时间|几天|多少天|几个工作日|几个月|几年`)

	holdsDuration = regexp.MustCompile(`\d+(?:[.,]\d+)?(?:\s*(?:-|–|to)\s*\d+)?[\s-]*(?:working |business |calendar )?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?)\b` +
		`|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|thirty|a|an)\s+(?:working |business )?(?:hours?|days?|nights?|weeks?|months?|years?)\b` +
		`|\bnext (?:working |business )?day\b` +
		`|\d+(?:[.,]\d+)?\s*(?:mm|cm|m|metres?|meters?|inch(?:es)?|ft|feet)\b` +
		`|[0-9一二三四五六七八九十两百几]+\s*个?\s*(?:工作日|天|日|周|星期|月|年|小时|分钟)`)
	holdsPrice = regexp.MustCompile(`(?:€|\$|£|¥)\s*\d|\d+(?:[.,]\d+)?\s*(?:eur|euros?|usd|dollars?|gbp|pounds?|rmb|cny)\b|\b(?:eur|usd|gbp)\)?\s*:?\s*\d` +
		`|\d+(?:[.,]\d+)?\s*(?:元|块)|\bfree of charge\b|\bcosts? nothing\b|\bno (?:extra )?(?:cost|charge)\b|免费`)
	holdsWeight = regexp.MustCompile(`\d+(?:[.,]\d+)?\s*(?:kg|kilos?|kilograms?|g|grams?|lbs?)\b|\d+(?:[.,]\d+)?\s*(?:公斤|千克|斤|克)`)
)

// AskedKind returns the kind of answer question asks for (AnyAnswer when
// its words name none). A weight is asked before a price ("how much does
// it weigh"), a price before a duration.
func AskedKind(question string) AnswerKind {
	q := Fold(question)
	switch {
	case askWeight.MatchString(q):
		return WeightAnswer
	case askPrice.MatchString(q):
		return PriceAnswer
	case askDuration.MatchString(q):
		return DurationAnswer
	}
	return AnyAnswer
}

// HeldBy reports whether text holds an expression of kind k: a number
// with a unit of time (or of length), a currency, or a unit of weight.
func (k AnswerKind) HeldBy(text string) bool { return k.heldByFolded(Fold(text)) }

// heldByFolded is HeldBy of a folded text.
func (k AnswerKind) heldByFolded(t string) bool {
	switch k {
	case DurationAnswer:
		return holdsDuration.MatchString(t)
	case PriceAnswer:
		return holdsPrice.MatchString(t)
	case WeightAnswer:
		return holdsWeight.MatchString(t)
	}
	return false
}

// EvidenceTerms returns the distinct terms of a text (TermSet) with the
// Terms of the kinds of answer it holds an expression of.
func EvidenceTerms(text string) map[string]struct{} {
	out := TermSet(text)
	folded := Fold(text)
	for _, k := range []AnswerKind{DurationAnswer, PriceAnswer, WeightAnswer} {
		if k.heldByFolded(folded) {
			out[k.Term()] = struct{}{}
		}
	}
	return out
}
