package analysis

import "unicode"

// Languages the service answers and hands off in.
const (
	English = "en"
	Chinese = "zh"
)

// Language tells the language of a text — a customer's message, a unit
// of a document — from its script: Chinese when it has at least as many
// Han characters as Latin words (a Chinese sentence often carries a
// product code, a brand or a name: "什么是 Debian GNU/Linux？" is
// Chinese), else English. Text without letters is English.
func Language(s string) string {
	han, words := 0, 0
	inWord := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
			inWord = false
		case unicode.IsLetter(r):
			if !inWord {
				words++
			}
			inWord = true
		default:
			inWord = false
		}
	}
	if han > 0 && han >= words {
		return Chinese
	}
	return English
}
