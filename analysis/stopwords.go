package analysis

import "github.com/kljensen/snowball/english"

// isStopWord reports whether a folded word says nothing about what a
// question asks: Snowball's English stop words, the contractions and
// fillers customers write ("hi", "please", "i'd like to know"), and the
// auxiliaries Snowball leaves in.
func isStopWord(w string) bool {
	if english.IsStopWord(w) {
		return true
	}
	switch w {
	case "could", "would", "shall", "may", "might", "must", "also", "ll", "ve", "re", "d", "m",
		"hi", "hello", "hey", "dear", "please", "pls", "thanks", "thank", "thx", "ok", "okay",
		"like", "want", "wanted", "wish", "need", "know", "tell", "wondering", "wonder", "ask", "asking",
		"question", "let", "get", "got", "getting", "whether", "anyone", "somebody", "someone", "anything",
		"something", "thing", "things", "yes", "able", "possible", "really", "actually", "still",
		"im", "ive", "id", "dont", "doesnt", "cant", "isnt", "arent", "whats", "hows", "u", "ur", "pl",
		// What "how long", "how much", "how far" ask is the answer's kind,
		// which the answer does not repeat.
		"long", "much", "many", "far", "often", "soon", "kind", "sort", "type":
		return true
	}
	return false
}

// cjkStopChars are function characters: particles, pronouns, copulas and
// question marks of Chinese that say nothing about a topic on their own
// (多, 久, 几 and 少 ask how long, how much, how many: 多久, 多少, 几天; 什 and 谁
// ask what and who).
// They still form pairs with their neighbours (会员, 功能, 可用).
const cjkStopChars = "怎是我你您他她它们在有和与及或就都也还要会能可以请问这那个一些么哪吗儿得地着过把被让给对多久几什谁少"

// cjkParticles are particles that end a word: they are no term and join
// no pair, so "退货吗" gives no pair "货吗".
const cjkParticles = "的了吗呢吧啊呀么嘛"

// isStopPair reports whether a CJK character pair is a question word, a
// pronoun or a politeness formula rather than a topic.
func isStopPair(p string) bool {
	switch p {
	case "什么", "怎么", "怎样", "如何", "可以", "能否", "是否", "请问", "我们", "你们", "他们", "您好", "你好",
		"我想", "想问", "一下", "哪里", "哪些", "为什", "什么时", "时候", "这个", "那个", "多少", "有没", "没有",
		"是不", "不是", "能不", "不能", "可不", "吗？", "的话", "谢谢", "麻烦", "知道", "需要", "要多", "多久":
		return true
	}
	return false
}
