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
	// ContactAnswer: "what is your phone number", "how can I contact
	// you", "e-mail address", "电话", "邮箱", "怎么联系": an e-mail, a
	// phone number, a link.
	ContactAnswer
	// TimeAnswer: "when", "what time", "opening hours", "几点",
	// "什么时候", "营业时间": a time of day, a weekday, a date, a month.
	TimeAnswer
	// PlaceAnswer: "where", "which address", "在哪", "哪里", "地址": an
	// address, a place named in capitals, a link or a file's path.
	PlaceAnswer
	// PartyAnswer: "who", "谁": a person or a body named in capitals, or
	// a party a help page names (our team, the seller, 客服).
	PartyAnswer
)

// The cues of the kinds in a folded question, and their expressions in a
// text (folded, but for a place's and a party's, which read capitals).
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
	askContact = regexp.MustCompile(`\b(phone|telephone|hotline|e-?mail|email address|contact|reach you|reach your|call you|fax|whatsapp)\b|电话|邮箱|邮件|联系|客服热线|热线`)
	askTime    = regexp.MustCompile(`^\s*when\b|\bwhen (do|does|did|is|are|can|will|should|was|were)\b|\bwhat time\b|\bopening (hours|times)\b|\b(hours|open) on\b|\bwhat (day|date|days|dates)\b|\bwhich (day|date|days|dates)\b|\bare you open\b|\bon (mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekends?|holidays?)\b|什么时候|何时|几点|哪天|哪一天|营业时间|上班时间|工作时间|什么时间`)
	askPlace   = regexp.MustCompile(`^\s*where\b|\bwhich (countries|country|cities|city|regions|places|stores|shops|locations|addresses)\b|哪些国家|哪些地区|哪些城市|哪个国家|哪个城市|\bwhere (do|does|is|are|can|should|will|would)\b|\bwhat is (the|your) address\b|\bwhich address\b|在哪|哪里|哪儿|什么地方|地址|网址|何处`)

	holdsContact = regexp.MustCompile(`[\w.+-]+@[\w-]+\.[\w.-]+|\+?\d[\d ()/-]{6,}\d|https?://|www\.|\d{3,4}-\d{3,4}-?\d{0,4}`)
	holdsTime    = regexp.MustCompile(`\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(am|pm|a\.m\.|p\.m\.)|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?|mon|tue|wed|thu|fri|sat|sun)\b|\b(january|february|march|april|may|june|july|august|september|october|november|december)\b|\b(19|20)\d{2}\b|\b(daily|every day|each day|twice a day|once a day|at any time|24/7|around the clock)\b|\d{1,2}\s*[点时]|周[一二三四五六日天]|星期[一二三四五六日天]|\d+\s*月|\d+\s*日|每天|每日|工作日|节假日|年|之前|之后|以后|立即|随时`)
	holdsPlace   = regexp.MustCompile(`(?i:https?://|www\.|\b[\w-]+\.(?:org|com|net|de|eu|io|info)\b|(?:^|\s)/[a-z0-9_.-]+/|\b\d{4,5}\s+[a-z]|\b(?:street|str\.|strasse|straße|road|avenue|lane|floor|building|warehouse|store|shop|office|branch|center|centre|directory|folder|menu|page|section|site|mirror|archive)s?\b)|\b(?:in|at|from|to|on|under|into)\s+(?:the\s+)?[A-Z]|路|街|号|楼|市|区|省|县|店|中心|仓库|网站|页面|目录|菜单|文件夹|镜像`)
	askParty     = regexp.MustCompile(`^\s*who\b|\bwho (is|are|was|were|wrote|writes|made|makes|created|creates|designed|runs|maintains|pays|decides|handles|started|founded|should|can|do|does)\b|谁|哪位|哪个(部门|团队|公司|人)`)
	holdsParty   = regexp.MustCompile(`\b[A-Z][a-z]+(?:\s+(?:[A-Z][a-z]+|[A-Z]\.))+|\b(?:by|from|with)\s+(?:the\s+)?[A-Z]|(?i:\b(?:we|our|us|team|staff|department|developers?|volunteers?|maintainers?|members?|seller|carrier|courier|customer service|support|manager|company|organi[sz]ation|foundation|project|community|you)\b)|由|我们|客服|团队|部门|公司|开发者|志愿者|维护者|组织|基金会|社区|您`)
	holdsWeight  = regexp.MustCompile(`\d+(?:[.,]\d+)?\s*(?:kg|kilos?|kilograms?|g|grams?|lbs?)\b|\d+(?:[.,]\d+)?\s*(?:公斤|千克|斤|克)`)
)

// cue is how a kind of answer is asked for, in a folded question, and
// held, in a text.
type cue struct {
	kind AnswerKind
	// term stands for the kind among a text's terms (EvidenceTerms).
	term       string
	ask, holds *regexp.Regexp
	// cased: holds reads capitals ("in Berlin", "Linus Torvalds"), so it
	// runs on the text as written, not folded.
	cased bool
}

// cues are the kinds in the order AskedKind tries them: a weight before a
// price ("how much does it weigh"), a price before a duration, the
// question's words before "where" and "who". Read only, like the
// expressions it holds.
var cues = [...]cue{
	{WeightAnswer, "#weight", askWeight, holdsWeight, false},
	{PriceAnswer, "#price", askPrice, holdsPrice, false},
	{DurationAnswer, "#duration", askDuration, holdsDuration, false},
	{ContactAnswer, "#contact", askContact, holdsContact, false},
	{TimeAnswer, "#time", askTime, holdsTime, false},
	{PlaceAnswer, "#place", askPlace, holdsPlace, true},
	{PartyAnswer, "#party", askParty, holdsParty, true},
}

// Term is the term that stands for an answer of kind k among a text's
// terms (EvidenceTerms): "#duration", "#price", "#place" …; "" for
// AnyAnswer. No word cuts into a term with "#", so it is never a word's.
func (k AnswerKind) Term() string {
	for _, c := range cues {
		if c.kind == k {
			return c.term
		}
	}
	return ""
}

// AskedKind returns the kind of answer question asks for (AnyAnswer when
// its words name none), trying the kinds in the order of cues.
func AskedKind(question string) AnswerKind {
	q := Fold(question)
	for _, c := range cues {
		if c.ask.MatchString(q) {
			return c.kind
		}
	}
	return AnyAnswer
}

// HeldBy reports whether text holds an expression of kind k: a number
// with a unit of time (or of length), a currency, a unit of weight, an
// e-mail, phone number or link, a time of day, weekday or date, a place
// or a party.
func (k AnswerKind) HeldBy(text string) bool {
	for _, c := range cues {
		if c.kind == k {
			return c.held(text, Fold(text))
		}
	}
	return false
}

// held reports whether text (folded: its Fold) holds an expression of
// c's kind.
func (c cue) held(text, folded string) bool {
	if c.cased {
		return c.holds.MatchString(text)
	}
	return c.holds.MatchString(folded)
}

// EvidenceTerms returns the distinct terms of a text (TermSet) with the
// Terms of the kinds of answer it holds an expression of.
func EvidenceTerms(text string) map[string]struct{} {
	out := TermSet(text)
	folded := Fold(text)
	for _, c := range cues {
		if c.held(text, folded) {
			out[c.term] = struct{}{}
		}
	}
	return out
}
